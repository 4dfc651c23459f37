import { randomBytes, scryptSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { BackupKeyRow, BackupKeyScope } from '@ksp/contracts';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { BackupKeyTable } from '../../platform/db/schema.js';
import { conflict, forbidden, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { aeadOpen, aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';

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
export function createBackupKeyService(deps: { db: Db; clock: Clock; keyring: Keyring }) {
  const { db, clock, keyring } = deps;
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

  const audit = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    details = {},
  ) =>
    writeAudit(
      trx,
      { who: subjectOf(actor), action, target, result: 'success', ip: meta.ip, details },
      clock(),
    );

  /** A domain key whose domain is gone (removed, or replaced by a system restore). */
  const orphaned = async (r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) =>
    r.scope === 'domain' &&
    !(await db.selectFrom('domain').select('id').where('id', '=', r.domain_id).executeTakeFirst());

  /**
   * Whether the caller may see and use the key: `visible`, and for root domain sessions also the
   * keys of domains that no longer exist (nobody else can reach them).
   */
  const usable = async (actor: Pick<Actor, 'systemScope' | 'domainId'>, r: BackupKeyTable) =>
    visible(actor as Actor, r) || (actor.systemScope && (await orphaned(r)));

  async function find(actor: Actor, id: string): Promise<BackupKeyTable> {
    const row = await db.selectFrom('backup_key').selectAll().where('id', '=', id).executeTakeFirst();
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
      const exists = await trx
        .selectFrom('backup_key')
        .select('id')
        .where('id', '=', row.id)
        .executeTakeFirst();
      if (exists) throw conflict('backup.keyExists', { id: row.id });
      const others = await sameScope(trx, row).select('id').executeTakeFirst();
      row.is_default = fields.isDefault || !others ? 1 : 0;
      if (row.is_default) await clearDefault(trx, row);
      await trx.insertInto('backup_key').values(row).execute();
      await audit(trx, actor, meta, action, row.name, { id: row.id, scope: row.scope, kcv: row.kcv });
    });
    return toRow(row);
  }

  const sameScope = (trx: Executor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) =>
    r.scope === 'system'
      ? trx.selectFrom('backup_key').where('scope', '=', 'system')
      : trx.selectFrom('backup_key').where('scope', '=', 'domain').where('domain_id', '=', r.domain_id);

  async function clearDefault(trx: Executor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) {
    let q = trx.updateTable('backup_key').set({ is_default: 0 }).where('scope', '=', r.scope);
    if (r.scope === 'domain') q = q.where('domain_id', '=', r.domain_id);
    await q.execute();
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
      const base = db
        .selectFrom('backup_key')
        .leftJoin('domain', 'domain.id', 'backup_key.domain_id')
        .where((eb) =>
          actor.systemScope
            ? eb.or([
                eb('backup_key.scope', '=', 'system'),
                eb('backup_key.domain_id', '=', actor.domainId),
                // Keys of domains that are gone: only the root domain can still reach them.
                eb.and([eb('backup_key.scope', '=', 'domain'), eb('domain.id', 'is', null)]),
              ])
            : eb.and([
                eb('backup_key.scope', '=', 'domain'),
                eb('backup_key.domain_id', '=', actor.domainId),
              ]),
        );
      const rows = await base
        .selectAll('backup_key')
        .select('domain.id as live_domain')
        .orderBy('backup_key.created_at', 'desc')
        .orderBy('backup_key.id')
        .offset((page - 1) * pageSize)
        .limit(pageSize)
        .execute();
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      return {
        data: rows.map(({ live_domain, ...r }) => toRow(r, r.scope === 'domain' && live_domain === null)),
        total: Number(total?.n ?? 0),
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
      await audit(db, actor, meta, 'backup-key.download', row.name, { id: row.id });
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
        await clearDefault(trx, row);
        await trx.updateTable('backup_key').set({ is_default: 1 }).where('id', '=', id).execute();
        await audit(trx, actor, meta, 'backup-key.set-default', row.name, { id });
      });
      return toRow({ ...row, is_default: 1 }, await orphaned(row));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: BackupKeyTable[] = [];
      for (const id of ids) rows.push(await find(actor, id));
      return db.transaction().execute(async (trx) => {
        for (const row of rows) {
          const using = await trx
            .selectFrom('backup')
            .select(['id'])
            .where('backup_key_id', '=', row.id)
            .where('status', '=', 'completed')
            .execute();
          if (using.length > 0) {
            throw stateForbids('backup.keyOnlyOne', {
              name: row.name,
              count: String(using.length),
              backup: using[0]!.id,
            });
          }
          await trx.deleteFrom('backup_key').where('id', '=', row.id).execute();
          await audit(trx, actor, meta, 'backup-key.delete', row.name, { id: row.id });
        }
        return { deleted: rows.length };
      });
    },

    /** The key's material (the caller zeroes it). */
    material: openMaterial,

    find,
    byId: (id: string) => db.selectFrom('backup_key').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The default key of a scope, for the caller's domain (domain scope). */
    defaultKey: (scope: BackupKeyScope, domainId: string) =>
      sameScope(db, { scope, domain_id: domainId })
        .selectAll()
        .where('is_default', '=', 1)
        .executeTakeFirst(),
    visible,
    usable,
  };
}

export type BackupKeyService = ReturnType<typeof createBackupKeyService>;
