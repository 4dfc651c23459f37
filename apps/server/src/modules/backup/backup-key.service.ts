import { randomBytes, scryptSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { BackupKeyRow, BackupKeyScope } from '@ksp/contracts';
import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import type { Db } from '../../platform/db/database.js';
import type { BackupKeyTable } from '../../platform/db/schema.js';
import { conflict, forbidden, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { aeadOpen, aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import {
  clearDefaultKey,
  completedWithKey,
  defaultKeyOf,
  deleteBackupKey,
  domainById,
  findBackupKey,
  insertBackupKey,
  pageOfBackupKeys,
  scopeHasKey,
  setDefaultKey,
} from './backup.store.js';

/** scrypt parameters of a downloaded key file (N = 2^15: about 0.1 s and 32 MiB). */
const SCRYPT = { N: 32768, r: 8, p: 1 };
/** What an uploaded file may ask for, so that a hostile file cannot exhaust the server. */
const SCRYPT_LIMITS = { N: 1 << 20, r: 16, p: 4 };
const FILE_FORMAT = 'ksp-backup-key';

const KeyFile = z.object({
  format: z.literal(FILE_FORMAT),
  version: z.literal(1),
  id: z.uuid(),
  name: z.string().min(1).max(64),
  scope: z.enum(['system', 'domain']),
  domain: z.string().max(64),
  kcv: z.string().regex(/^[0-9A-F]{6}$/),
  hint: z.string().max(200),
  kdf: z.object({
    name: z.literal('scrypt'),
    N: z.number().int().min(1024).max(SCRYPT_LIMITS.N),
    r: z.number().int().min(1).max(SCRYPT_LIMITS.r),
    p: z.number().int().min(1).max(SCRYPT_LIMITS.p),
    salt: z.string().min(16).max(128),
  }),
  sealed: z.string().min(1).max(1024),
});

const fileAad = (f: { id: string; scope: string; kcv: string }) =>
  `ksp/backup-key-file/v1/${f.id}/${f.scope}/${f.kcv}`;
const storeAad = (id: string) => `ksp/backup-key/${id}`;

function passwordKey(password: string, salt: Buffer, kdf: { N: number; r: number; p: number }): Buffer {
  return scryptSync(password.normalize('NFC'), salt, 32, {
    ...kdf,
    maxmem: 256 * kdf.N * kdf.r + 1024 * 1024,
  });
}

/**
 * Backup keys (docs/modules.md#backup-keys-and-backups): AES-256 keys that encrypt backups. Stored sealed under a key
 * derived from the root key; they leave only as a file sealed under a password-derived key.
 * A system key belongs to the root domain and only root domain sessions see it; a domain key
 * is seen only in its domain.
 */
export function createBackupKeyService(deps: {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  /** The module's audit writer (default: one on `clock`). */
  audit?: AuditWriter;
}) {
  const { db, clock, keyring } = deps;
  const audit = deps.audit ?? createAuditWriter(clock);
  const wrapKey = () => keyring.deriveKey('backup-key');

  const toRow = (r: BackupKeyTable, orphaned = false): BackupKeyRow => ({
    id: r.id,
    name: r.name,
    scope: r.scope,
    domain: r.domain_name,
    is_default: r.is_default === 1,
    kcv: r.kcv,
    created_at: r.created_at,
    created_by: r.created_by,
    orphaned,
  });

  /** Whether the caller may see and use the key. */
  const visible = (actor: Actor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) =>
    r.scope === 'system' ? actor.systemScope : r.domain_id === actor.domainId;

  /** A domain key whose domain is gone (removed, or replaced by a system restore). */
  const orphaned = async (r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) =>
    r.scope === 'domain' && !(await domainById(db, r.domain_id));

  /**
   * Whether the caller may see and use the key: `visible`, and for root domain sessions also the
   * keys of domains that no longer exist (nobody else can reach them).
   */
  const usable = async (actor: Pick<Actor, 'systemScope' | 'domainId'>, r: BackupKeyTable) =>
    visible(actor as Actor, r) || (actor.systemScope && (await orphaned(r)));

  async function find(actor: Actor, id: string): Promise<BackupKeyTable> {
    const row = await findBackupKey(db, id);
    if (!row || !(await usable(actor, row))) throw notFound('backup.keyNotFound', { id });
    return row;
  }

  function requireScope(actor: Actor, scope: BackupKeyScope) {
    if (scope === 'system' && !actor.systemScope) throw forbidden('backup.systemOnly', { scope });
  }

  async function insert(
    actor: Actor,
    meta: RequestMeta,
    fields: { id: string; name: string; scope: BackupKeyScope; material: Buffer; isDefault: boolean },
    action: string,
  ) {
    const wk = wrapKey();
    const row: BackupKeyTable = {
      id: fields.id,
      name: fields.name,
      scope: fields.scope,
      domain_id: actor.domainId,
      domain_name: actor.domainName,
      is_default: 0,
      material_sealed: aeadSeal(wk, fields.material, storeAad(fields.id)),
      kcv: keyCheckValue('AES-256', fields.material),
      created_at: clock().toISOString(),
      created_by: actor.username,
    };
    wk.fill(0);
    await db.transaction().execute(async (trx) => {
      if (await findBackupKey(trx, row.id)) throw conflict('backup.keyExists', { id: row.id });
      row.is_default = fields.isDefault || !(await scopeHasKey(trx, row)) ? 1 : 0;
      if (row.is_default) await clearDefaultKey(trx, row);
      await insertBackupKey(trx, row);
      await audit.byCaller(trx, actor, meta, {
        action,
        target: row.name,
        details: { id: row.id, scope: row.scope, kcv: row.kcv },
      });
    });
    return toRow(row);
  }

  function openMaterial(row: BackupKeyTable): Buffer {
    const wk = wrapKey();
    try {
      return aeadOpen(wk, row.material_sealed, storeAad(row.id));
    } finally {
      wk.fill(0);
    }
  }

  return {
    async list(actor: Actor, page: number, pageSize: number) {
      const { rows, total } = await pageOfBackupKeys(
        db,
        { all: actor.systemScope, domainId: actor.domainId },
        { page, page_size: pageSize },
      );
      return {
        data: rows.map(({ live_domain, ...r }) => toRow(r, r.scope === 'domain' && live_domain === null)),
        total,
      };
    },

    async create(
      actor: Actor,
      meta: RequestMeta,
      body: { name: string; scope: BackupKeyScope; is_default: boolean },
    ) {
      requireScope(actor, body.scope);
      const material = randomBytes(32);
      try {
        return await insert(
          actor,
          meta,
          { id: uuidv7(), name: body.name, scope: body.scope, material, isDefault: body.is_default },
          'backup-key.create',
        );
      } finally {
        material.fill(0);
      }
    },

    /** The key file: JSON, the material sealed under scrypt(password). */
    async download(actor: Actor, meta: RequestMeta, body: { id: string; password: string; hint: string }) {
      const row = await find(actor, body.id);
      const material = openMaterial(row);
      const salt = randomBytes(32);
      const key = passwordKey(body.password, salt, SCRYPT);
      const file = {
        format: FILE_FORMAT,
        version: 1,
        id: row.id,
        name: row.name,
        scope: row.scope,
        domain: row.domain_name,
        kcv: row.kcv,
        hint: body.hint,
        kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') },
        sealed: aeadSeal(key, material, fileAad(row)),
      };
      key.fill(0);
      material.fill(0);
      await audit.byCaller(db, actor, meta, {
        action: 'backup-key.download',
        target: row.name,
        details: { id: row.id },
      });
      return {
        filename: `backup-key-${row.name.replace(/[^A-Za-z0-9._-]/g, '_')}.json`,
        text: `${JSON.stringify(file, null, 2)}\n`,
      };
    },

    async upload(
      actor: Actor,
      meta: RequestMeta,
      body: { file: string; password: string; name?: string | undefined },
    ) {
      let parsed: z.infer<typeof KeyFile>;
      try {
        const result = KeyFile.safeParse(JSON.parse(body.file));
        if (!result.success) throw new Error(result.error.issues[0]?.path.join('.') ?? 'fields');
        parsed = result.data;
      } catch (err) {
        throw invalid('backup.keyFileMalformed', {
          reason: err instanceof SyntaxError ? 'not JSON' : (err as Error).message,
        });
      }
      requireScope(actor, parsed.scope);
      const key = passwordKey(body.password, Buffer.from(parsed.kdf.salt, 'base64'), parsed.kdf);
      let material: Buffer;
      try {
        material = aeadOpen(key, parsed.sealed, fileAad(parsed));
      } catch {
        throw invalid('backup.keyFilePassword');
      } finally {
        key.fill(0);
      }
      try {
        if (material.length !== 32 || keyCheckValue('AES-256', material) !== parsed.kcv) {
          throw invalid('backup.keyFileMalformed', { reason: 'check value' });
        }
        return await insert(
          actor,
          meta,
          { id: parsed.id, name: body.name ?? parsed.name, scope: parsed.scope, material, isDefault: false },
          'backup-key.upload',
        );
      } finally {
        material.fill(0);
      }
    },

    async setDefault(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(actor, id);
      await db.transaction().execute(async (trx) => {
        await clearDefaultKey(trx, row);
        await setDefaultKey(trx, id);
        await audit.byCaller(trx, actor, meta, {
          action: 'backup-key.set-default',
          target: row.name,
          details: { id },
        });
      });
      return toRow({ ...row, is_default: 1 }, await orphaned(row));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: BackupKeyTable[] = [];
      for (const id of ids) rows.push(await find(actor, id));
      return db.transaction().execute(async (trx) => {
        for (const row of rows) {
          const using = await completedWithKey(trx, row.id);
          if (using.length > 0) {
            throw stateForbids('backup.keyOnlyOne', {
              name: row.name,
              count: String(using.length),
              backup: using[0]!,
            });
          }
          await deleteBackupKey(trx, row.id);
          await audit.byCaller(trx, actor, meta, {
            action: 'backup-key.delete',
            target: row.name,
            details: { id: row.id },
          });
        }
        return { deleted: rows.length };
      });
    },

    /** The key's material (the caller zeroes it). */
    material: openMaterial,

    find,
    byId: (id: string) => findBackupKey(db, id),
    /** The default key of a scope, for the caller's domain (domain scope). */
    defaultKey: (scope: BackupKeyScope, domainId: string) => defaultKeyOf(db, scope, domainId),
    visible,
    usable,
  };
}

export type BackupKeyService = ReturnType<typeof createBackupKeyService>;
