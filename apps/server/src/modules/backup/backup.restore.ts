import { Code, ROOT_DOMAIN, type BackupRow, type BackupScope } from '@ksp/contracts';
import { refusalDetails, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Engine, Executor } from '../../platform/db/database.js';
import { forbidden, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { aeadOpen, aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import type { ModuleServices } from '../../platform/module.js';
import { storedError } from '../../platform/stored-message.js';
import type { BackupKeyService } from './backup-key.service.js';
import {
  clearDomain,
  clearSystem,
  deleteById,
  existingRows,
  insertRows,
  ownedIds,
  recountTally,
  setDomainParent,
  setTallyTrigger,
} from './backup.data.store.js';
import type { ArchiveFiles } from './backup.files.js';
import {
  ArchiveError,
  hsmBoundKey,
  hsmSecretAad,
  kekAad,
  kekWrapKey,
  readArchive,
  readArchiveHeader,
  type ArchiveHeader,
  type ArchiveRecord,
} from './backup.format.js';
import { findVisible, toRow } from './backup.rows.js';
import { domainById, domainByName, findBackup, insertDomain, updateBackup } from './backup.store.js';
import { DOMAIN_TABLES, SYSTEM_TABLES, type Row } from './backup.tables.js';

/** Rows per insert: 1,000 rows of the widest table (25 columns) stay under both engines’ parameter limits. */
const BATCH = 1000;
const materialAad = (keyId: string, version: number) => `ksp/key/${keyId}/${version}`;
/** The tables whose `serial` is a certificate's, and the stored form migration 039 shortens. */
const SERIAL_TABLES = new Set(['cert_ca', 'cert_certificate', 'cert_external']);
const PADDED_SERIAL = /^00[89A-F]/;

/** Where one backed-up domain goes on restore, and how its wrapped material follows. */
interface DomainTarget {
  id: string;
  sourceKek: Buffer;
  targetKek: Buffer;
  rewrap: boolean;
}

/** An archive's fault as the caller's refusal (a newer format or a missing key: 4220; else 4000). */
export const archiveError = (err: unknown): unknown =>
  err instanceof ArchiveError
    ? new KspError(
        err.messageKey === 'backup.newerFormat' || err.messageKey === 'backup.missingKey'
          ? Code.STATE_FORBIDS
          : Code.INVALID,
        err.messageKey,
        err.params,
      )
    : err;

const malformed = (reason: string) => new ArchiveError('backup.malformed', { reason });

/**
 * The restore engine (README.md "A restore is all or nothing"): reads an archive inside one
 * transaction, every frame authenticated before its rows are used; any failure (wrong key,
 * damage, a row that does not fit) changes nothing and is recorded after the rollback.
 */
export function createBackupRestore(deps: {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  keys: BackupKeyService;
  files: ArchiveFiles;
  audit: AuditWriter;
  engine: Engine;
  /** Called after a restore committed: caches of what it replaced are dropped. */
  restored: (scope: BackupScope) => void;
  log: { error(details: object, message: string): void };
  hsm: () => ModuleServices['hsmSecrets'];
}) {
  const { db, clock, keyring, keys, files, audit } = deps;
  let restoring = false;

  /** The archive key of an HSM-bound backup: refused where the same HSM key is not reachable. */
  async function hsmBound(material: Buffer, header: ArchiveHeader): Promise<Buffer> {
    const { wrapped, token } = header.hsm!;
    let secret: Buffer;
    try {
      if (typeof wrapped !== 'string' || !(await deps.hsm().bound())) throw new Error('not bound');
      secret = await deps.hsm().open(wrapped, hsmSecretAad(header.salt));
    } catch {
      material.fill(0);
      throw stateForbids('backup.hsmRequired', { token: String(token).slice(0, 64) });
    }
    try {
      return hsmBoundKey(material, secret, Buffer.from(header.salt, 'base64'));
    } finally {
      material.fill(0);
      secret.fill(0);
    }
  }

  async function resolveDomain(
    trx: Executor,
    actor: Actor,
    scope: BackupScope,
    record: { r: Row; kek?: string },
    wrap: Buffer,
  ): Promise<DomainTarget> {
    const sourceId = String(record.r.id);
    if (!record.kek) throw malformed('domain without its key');
    let sourceKek: Buffer;
    try {
      sourceKek = aeadOpen(wrap, record.kek, kekAad(sourceId));
    } catch {
      throw new ArchiveError('backup.tampered', { chunk: 'kek' });
    }
    if (scope === 'system') {
      return { id: sourceId, sourceKek, targetKek: sourceKek, rewrap: false };
    }
    let target = await domainById(trx, sourceId);
    if (!actor.systemScope) {
      if (!target || target.id !== actor.domainId)
        throw forbidden('backup.otherDomain', { domain: String(record.r.name) });
    }
    if (!target && scope === 'domain') {
      target = await domainByName(trx, String(record.r.name));
      if (!target) {
        const root = await domainByName(trx, ROOT_DOMAIN);
        if (!root) throw new Error('the root domain is missing');
        target = {
          id: sourceId,
          name: String(record.r.name),
          description: typeof record.r.description === 'string' ? record.r.description : '',
          parent_id: root.id,
          kek_wrapped: keyring.wrapDomainKek(sourceId, sourceKek),
          created_at: clock().toISOString(),
        };
        await insertDomain(trx, target);
      }
    }
    if (!target) throw notFound('backup.otherDomain', { domain: String(record.r.name) });
    const targetKek = keyring.domainKek(target.id, target.kek_wrapped);
    return { id: target.id, sourceKek, targetKek, rewrap: !targetKek.equals(sourceKek) };
  }

  /** Partial and key rotation restores replace the rows they hold, one by one, within their domain. */
  async function replaceById(
    trx: Executor,
    table: 'kms_key' | 'cert_certificate',
    rows: Row[],
    domainId: string,
  ) {
    const ids = rows.map((r) => String(r.id));
    const foreign = (await existingRows(trx, table, ids)).find((f) => f.domain_id !== domainId);
    if (foreign)
      throw new KspError(Code.CONFLICT, 'backup.idTaken', {
        kind: table === 'kms_key' ? 'key' : 'certificate',
        id: foreign.id,
      });
    await deleteById(trx, table, ids);
  }

  async function apply(
    trx: Executor,
    actor: Actor,
    header: ArchiveHeader,
    records: AsyncGenerator<ArchiveRecord>,
    wrap: Buffer,
  ) {
    const scope = header.scope;
    const targets = new Map<string, DomainTarget>();
    const parents: { id: string; parent: string | null }[] = [];
    const batch: { table: string; rows: Row[] } = { table: '', rows: [] };
    const read: Record<string, number> = {};
    let cleared = false;
    let ended: Record<string, number> | null = null;

    const targetOf = (domainId: unknown): DomainTarget => {
      const t = targets.get(String(domainId));
      if (!t) throw malformed('a row of a domain the backup does not hold');
      return t;
    };

    const targetIds = () => [...new Set([...targets.values()].map((t) => t.id))];
    /** Refuses rows whose parent (a key, a CA) this restore did not write to its domains. */
    const requireOwned = async (table: 'kms_key' | 'cert_ca', ids: string[], reason: string) => {
      if ((await ownedIds(trx, table, ids, targetIds())).length !== ids.length) throw malformed(reason);
    };
    const flush = async () => {
      const { table, rows } = batch;
      batch.rows = [];
      if (!rows.length) return;
      if (scope !== 'system' && scope !== 'domain' && (table === 'kms_key' || table === 'cert_certificate')) {
        const byDomain = new Map<string, Row[]>();
        for (const r of rows)
          byDomain.set(String(r.domain_id), [...(byDomain.get(String(r.domain_id)) ?? []), r]);
        for (const [d, rs] of byDomain) await replaceById(trx, table, rs, d);
      }
      // Versions only of keys this restore wrote, in the domain it wrote them to.
      if (scope !== 'system' && table === 'kms_key_version')
        await requireOwned(
          'kms_key',
          [...new Set(rows.map((r) => String(r.key_id)))],
          'a key version without its key',
        );
      if (scope !== 'system' && table === 'cert_crl')
        await requireOwned(
          'cert_ca',
          rows.map((r) => String(r.ca_id)),
          'a CRL without its CA',
        );
      await insertRows(trx, table, rows);
    };

    for await (const record of records) {
      if (ended) throw malformed('records after the end');
      if (record.t === 'end') {
        ended = (record as { counts: Record<string, number> }).counts;
        continue;
      }
      const { t: table, r: row, kek } = record as { t: string; r: Row; kek?: string; d?: string };
      if (typeof row !== 'object' || row === null) throw malformed('a record without a row');
      if (scope === 'system' ? !SYSTEM_TABLES.some((s) => s.table === table) : !DOMAIN_TABLES.has(table)) {
        throw malformed(`table ${table} in a ${scope} backup`);
      }
      read[table] = (read[table] ?? 0) + 1;
      if (table !== batch.table || batch.rows.length >= BATCH) {
        await flush();
        batch.table = table;
      }
      if (table === 'domain') {
        if (scope === 'system' && !cleared) {
          await clearSystem(trx);
          cleared = true;
        }
        const target = await resolveDomain(trx, actor, scope, { r: row, ...(kek ? { kek } : {}) }, wrap);
        targets.set(String(row.id), target);
        if (scope === 'system') {
          parents.push({ id: target.id, parent: (row.parent_id as string | null) ?? null });
          batch.rows.push({
            ...row,
            parent_id: null,
            kek_wrapped: keyring.wrapDomainKek(target.id, target.sourceKek),
          });
        } else if (scope === 'domain' && !cleared) {
          await clearDomain(trx, target.id);
          cleared = true;
        }
        continue;
      }
      if (scope === 'system' && !cleared) throw malformed('rows before the domains');
      let out = row;
      if (table === 'kms_key_version') {
        const d = targetOf((record as { d?: string }).d);
        const wrapped = row.material_wrapped;
        if (d.rewrap && typeof wrapped === 'string') {
          const aad = materialAad(String(row.key_id), Number(row.version));
          let plain: Buffer;
          try {
            plain = aeadOpen(d.sourceKek, wrapped, aad);
          } catch {
            throw malformed(`key ${String(row.key_id)} material does not open`);
          }
          out = { ...row, material_wrapped: aeadSeal(d.targetKek, plain, aad) };
          plain.fill(0);
        }
      } else if ('domain_id' in row && scope !== 'system') {
        out = { ...row, domain_id: targetOf(row.domain_id).id };
      }
      // A backup written before migration 038 has no kind: every external certificate was a CA's then.
      if (table === 'cert_external' && out.kind === undefined) out = { ...out, kind: 'ca' };
      // A backup written before migration 039 may keep an outside serial with DER's leading zero octet.
      if (SERIAL_TABLES.has(table) && typeof out.serial === 'string' && PADDED_SERIAL.test(out.serial)) {
        out = { ...out, serial: out.serial.slice(2) };
      }
      batch.rows.push(out);
    }
    await flush();
    if (!ended) throw new ArchiveError('backup.truncated');
    if (scope === 'system' && !cleared) throw malformed('no domains');
    for (const [table, n] of Object.entries(ended)) {
      if ((read[table] ?? 0) !== n) throw malformed(`${table}: ${read[table] ?? 0} rows, ${n} announced`);
    }
    for (const p of parents) {
      if (p.parent) await setDomainParent(trx, p.id, p.parent);
    }
    return { read, domains: targetIds() };
  }

  /** Records a failed restore on its row, with its audit record (after the rollback). */
  async function recordFailure(actor: Actor, meta: RequestMeta, id: string, failure: KspError) {
    await db
      .transaction()
      .execute(async (trx) => {
        await updateBackup(trx, id, { restore_status: 'failed', error: storedError(failure) });
        await audit.byCaller(trx, actor, meta, {
          action: 'backup.restore',
          target: id,
          result: 'failure',
          details: refusalDetails(failure),
        });
      })
      .catch(() => undefined);
  }

  async function restore(actor: Actor, meta: RequestMeta, id: string): Promise<BackupRow> {
    const backup = await findVisible(db, actor, id);
    if (backup.status !== 'completed')
      throw stateForbids('backup.notCompleted', { id, status: backup.status });
    if (backup.scope === 'system' && !actor.systemScope)
      throw forbidden('backup.systemOnly', { scope: 'system' });
    if (restoring) throw stateForbids('backup.busy');
    files.require(backup);
    restoring = true;
    try {
      let header: ArchiveHeader;
      try {
        header = await readArchiveHeader(files.fileOf(id));
      } catch (err) {
        throw archiveError(err);
      }
      const key = await keys.byId(header.backup_key_id);
      if (!key || !(await keys.usable(actor, key))) {
        throw new KspError(Code.STATE_FORBIDS, 'backup.missingKey', { id: header.backup_key_id });
      }
      await updateBackup(db, id, { restore_status: 'restoring', error: null });
      let material = keys.material(key);
      if (header.hsm) material = await hsmBound(material, header);
      const wrap = kekWrapKey(material, Buffer.from(header.salt, 'base64'));
      try {
        // PostgreSQL: a row trigger bumping one tally row per key costs O(n²) in one transaction
        // (each update leaves a row version the next must step over); a bulk restore turns it
        // off (transactionally) and recounts the domains it replaced instead.
        const bulk = deps.engine === 'postgres' && (header.scope === 'system' || header.scope === 'domain');
        await db.transaction().execute(async (trx) => {
          if (bulk) await setTallyTrigger(trx, false);
          const records = readArchive(files.fileOf(id), header, material, key.kcv);
          const { read, domains } = await apply(trx, actor, header, records, wrap);
          if (bulk) {
            await recountTally(trx, header.scope === 'system' ? null : domains);
            await setTallyTrigger(trx, true);
          }
          await audit.byCaller(trx, actor, meta, {
            action: 'backup.restore',
            target: id,
            details: { scope: header.scope, rows: JSON.stringify(read) },
          });
        });
      } catch (err) {
        const mapped = archiveError(err);
        const failure =
          mapped instanceof KspError
            ? mapped
            : new KspError(Code.INVALID, 'backup.malformed', { reason: 'its rows do not fit this database' });
        if (!(mapped instanceof KspError)) deps.log.error({ err, backup: id }, 'restore failed');
        await recordFailure(actor, meta, id, failure);
        throw failure;
      } finally {
        material.fill(0);
        wrap.fill(0);
      }
      keyring.forgetKeks();
      deps.restored(header.scope);
      // A system restore replaced this table too: the row may be gone (another install's backups).
      const at = clock().toISOString();
      if (await findBackup(db, id))
        await updateBackup(db, id, { restore_status: 'restored', restored_at: at, error: null });
      return toRow({ ...backup, restore_status: 'restored', restored_at: at, error: null });
    } finally {
      restoring = false;
    }
  }

  return { restore };
}
