import { randomUUID } from 'node:crypto';
import {
  builtInConfig,
  DEFAULT_UKEY_BRIDGE,
  LOGO_MAX_BYTES,
  PRODUCT_VERSION,
  type api,
  type Input,
  type QueryInput,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ConfigTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import {
  deleteConfig,
  configValue,
  ensureDefaultConfig,
  findConfigById,
  findConfigByIds,
  findConfigByKey,
  insertConfig,
  listConfig,
  publicConfig,
  updateConfig,
} from './config.store.js';

export const DEFAULT_TITLE = '密钥管理系统';
const TITLE_MAX = 64;
/** What an upload stores: an image of a sniffed type, Base64. */
const LOGO_DATA_URL = /^data:image\/(png|jpeg|webp|svg\+xml);base64,[A-Za-z0-9+/]+={0,2}$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}

function toEntry(row: ConfigTable) {
  return {
    id: row.id,
    key: row.key,
    value: row.value,
    public: row.is_public === 1,
    built_in: row.built_in === 1,
    read_only: row.read_only === 1,
    description: row.description,
    updated_at: row.updated_at,
  };
}

/** Sniffs the image type from its bytes; the declared MIME type is not trusted. */
export function sniffImage(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  const head = bytes
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return null;
}

export function createConfigService(deps: { db: Db; clock: Clock; audit: AuditWriter }) {
  const { db, clock, audit } = deps;

  /** The built-in entries' rules; free entries take any text up to the length limit. */
  function checkValue(key: string, value: string): void {
    if (key === 'MFA' && value !== '0' && value !== '1') throw invalid('config.badMfa');
    if (key === 'title' && (value.trim() === '' || [...value].length > TITLE_MAX))
      throw invalid('config.badTitle', { max: TITLE_MAX });
    if (key === 'UKEY_BRIDGE' && !isHttpUrl(value)) throw invalid('config.badBridge');
    if (key === 'logo' && value !== '' && !LOGO_DATA_URL.test(value)) throw invalid('config.badLogo');
  }

  async function change(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    changes: Omit<Input<typeof api.config.edit>, 'id'>,
  ) {
    const row = await findConfigById(db, id);
    if (!row) throw notFound('config.notFound', { id });
    if (row.read_only === 1) throw stateForbids('config.readOnly', { key: row.key });
    checkValue(row.key, changes.value);
    const updated_at = clock().toISOString();
    await db.transaction().execute(async (trx) => {
      await updateConfig(trx, id, {
        value: changes.value,
        updated_at,
        ...(changes.public !== undefined && row.built_in === 0 ? { is_public: changes.public ? 1 : 0 } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
      });
      await audit.byCaller(trx, actor, meta, {
        action: 'config.edit',
        target: row.key,
        details: { bytes: changes.value.length },
      });
    });
    return toEntry((await findConfigById(db, id))!);
  }

  return {
    ensureDefaults: (now: string) =>
      ensureDefaultConfig(
        db,
        {
          version: PRODUCT_VERSION,
          title: DEFAULT_TITLE,
          logo: '',
          MFA: '0',
          UKEY_BRIDGE: DEFAULT_UKEY_BRIDGE,
        },
        now,
      ),

    async list(query: QueryInput<typeof api.config.list>) {
      const { rows, total } = await listConfig(db, { key: query.key }, query);
      return { data: rows.map(toEntry), total };
    },

    outlist: () => publicConfig(db),

    /** One item's value (the user module reads `MFA`), or undefined when it is not set. */
    value: (key: string) => configValue(db, key),

    async add(actor: Actor, meta: RequestMeta, body: Input<typeof api.config.add>) {
      if (body.key in builtInConfig || (await findConfigByKey(db, body.key)))
        throw conflict('config.keyTaken', { key: body.key });
      const row: ConfigTable = {
        id: randomUUID(),
        key: body.key,
        value: body.value,
        is_public: body.public ? 1 : 0,
        built_in: 0,
        read_only: 0,
        description: body.description,
        updated_at: clock().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await insertConfig(trx, row);
        await audit.byCaller(trx, actor, meta, { action: 'config.add', target: row.key });
      });
      return toEntry(row);
    },

    edit: (actor: Actor, meta: RequestMeta, body: Input<typeof api.config.edit>) =>
      change(actor, meta, body.id, body),

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows = await findConfigByIds(db, ids);
      const missing = ids.find((id) => !rows.some((r) => r.id === id));
      if (missing) throw notFound('config.notFound', { id: missing });
      const builtIn = rows.find((r) => r.built_in === 1);
      if (builtIn) throw stateForbids('config.builtIn', { key: builtIn.key });
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteConfig(trx, ids);
        for (const row of rows) {
          await audit.byCaller(trx, actor, meta, { action: 'config.delete', target: row.key });
        }
        return { deleted };
      });
    },

    async uploadLogo(
      actor: Actor,
      meta: RequestMeta,
      file: { field: string; bytes: Buffer; truncated: boolean } | null,
    ) {
      if (!file) throw invalid('config.uploadMissing');
      if (file.truncated || file.bytes.length > LOGO_MAX_BYTES) {
        throw invalid('config.uploadSize', { max: LOGO_MAX_BYTES / 1024 });
      }
      const type = sniffImage(file.bytes);
      if (!type) throw invalid('config.uploadType');
      const row = await findConfigByKey(db, 'logo');
      if (!row) throw notFound('config.notFound', { id: 'logo' });
      return change(actor, meta, row.id, { value: `data:${type};base64,${file.bytes.toString('base64')}` });
    },
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
