import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import {
  BACKUP_FORMAT_VERSION,
  Code,
  PRODUCT_VERSION,
  ROOT_DOMAIN,
  type BackupFilter,
  type BackupRow,
  type BackupScope,
  type Language,
} from '@ksp/contracts';
import { subjectOf, writeAudit, type AuditSubject } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Engine, Executor } from '../../platform/db/database.js';
import type { BackupKeyTable, BackupTable, DomainTable } from '../../platform/db/schema.js';
import { forbidden, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import { StreamedFile, type Actor, type RequestMeta } from '../../platform/http/route.js';
import { aeadOpen, aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import { LeaseLostError, type JobRun, type Jobs } from '../../platform/jobs/jobs.js';
import type { ModuleServices } from '../../platform/module.js';
import { localized, storedError, storedMessage } from '../../platform/stored-message.js';
import type { BackupKeyService } from './backup-key.service.js';
import { describeBackup } from './backup.description.js';
import {
  ArchiveError,
  createArchiveWriter,
  hsmBoundKey,
  hsmSecretAad,
  kekWrapKey,
  newSalt,
  readArchive,
  readArchiveHeader,
  type ArchiveHeader,
  type ArchiveRecord,
  type ArchiveWriter,
} from './backup.format.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import {
  DOMAIN_TABLES,
  SYSTEM_TABLES,
  type LooseDb,
  type LooseSchema,
  type Narrow,
  type Row,
} from './backup.tables.js';

const PAGE = 1000;
/** The jobs service's name for writing backups (one lease: one node of a cluster at a time). */
export const BACKUP_JOB = 'backup';
/** What the backup job saves: the backup it is writing. */
export interface BackupCheckpoint {
  backup: string;
}
/** A writer renews the job's lease at least this often (the lease lasts 60 s). */
const SAVE_EVERY_MS = 5_000;
/** How often a caller waiting for an archive looks at its status. */
const WAIT_POLL_MS = 250;
/** Rows per insert: 1,000 rows of the widest table (25 columns) stay under both engines’ parameter limits. */
const BATCH = 1000;
const kekAad = (domainId: string) => `ksp/backup/kek/${domainId}`;
const materialAad = (keyId: string, version: number) => `ksp/key/${keyId}/${version}`;

/** Who a backup or restore is made for: a signed-in caller, or the scheduler. */
interface Requester {
  subject: AuditSubject;
  username: string;
  domainId: string;
  domainName: string;
  systemScope: boolean;
  ip: string;
}

const fromActor = (actor: Actor, meta: RequestMeta): Requester => ({
  subject: subjectOf(actor),
  username: actor.username,
  domainId: actor.domainId,
  domainName: actor.domainName,
  systemScope: actor.systemScope,
  ip: meta.ip,
});

/** Where one backed-up domain goes on restore, and how its wrapped material follows. */
interface DomainTarget {
  id: string;
  sourceKek: Buffer;
  targetKek: Buffer;
  rewrap: boolean;
}

/**
 * Backups and restore (docs/modules.md#backup-keys-and-backups, README.md). A backup streams rows page by page
 * into an archive under a backup key; key material stays wrapped under its domain KEK, and
 * the KEK travels wrapped under the backup key. A restore reads the archive inside one
 * transaction: any failure (wrong key, damage, a row that does not fit) changes nothing.
 */
export function createBackupService(deps: {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  keys: BackupKeyService;
  /** Where archives are written and read (KSP_BACKUP_DIR). */
  backupDir: string;
  /** This node's name, recorded on the archives it writes. */
  node: string;
  /** Backups are written by the jobs service's `backup` job (BACKUP_JOB), under its lease. */
  jobs: Jobs;
  engine: Engine;
  /** Called after a restore committed: caches of what it replaced are dropped. */
  restored: (scope: BackupScope) => void;
  log: { error(details: object, message: string): void };
  /** The bound HSM's sealing, for HSM-bound backups (modules/hsm). */
  hsm: () => ModuleServices['hsmSecrets'];
}) {
  const { db, clock, keyring, keys } = deps;
  const loose = db as unknown as LooseDb;
  const dir = deps.backupDir;
  const fileOf = (id: string) => join(dir, `${id}.kspb`);
  /** The archive must be here; if it is not, the answer names the node that wrote it. */
  const requireFile = (row: BackupTable) => {
    if (!existsSync(fileOf(row.id)))
      throw stateForbids('backup.fileMissing', { id: row.id, node: row.node ?? '-' });
  };
  let restoring = false;

  const toRow = (r: BackupTable, lang: Language = 'en'): BackupRow => ({
    id: r.id,
    scope: r.scope,
    domain: r.domain_name,
    ...describeBackup(r.scope, r.description, lang),
    backup_key_id: r.backup_key_id,
    status: r.status,
    progress: r.progress,
    restore_status: r.restore_status,
    restored_at: r.restored_at,
    error: localized(r.error, lang),
    size: Number(r.size),
    sha256: r.sha256,
    counts: JSON.parse(r.counts) as Record<string, number>,
    format_version: r.format_version,
    source_version: r.source_version,
    uploaded: r.uploaded === 1,
    tied_to_hsm: r.tied_to_hsm === 1,
    created_at: r.created_at,
    created_by: r.created_by,
    finished_at: r.finished_at,
    node: r.node,
  });

  const visible = (
    who: Pick<Requester, 'systemScope' | 'domainId'>,
    r: Pick<BackupTable, 'scope' | 'domain_id'>,
  ) => who.systemScope || (r.scope !== 'system' && r.domain_id === who.domainId);

  async function find(who: Requester, id: string): Promise<BackupTable> {
    const row = await db.selectFrom('backup').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !visible(who, row)) throw notFound('backup.notFound', { id });
    return row;
  }

  const audit = (
    trx: Executor,
    who: Requester,
    action: string,
    target: string,
    details: Record<string, string | number | boolean | null>,
    result: 'success' | 'failure' = 'success',
  ) => writeAudit(trx, { who: who.subject, action, target, result, ip: who.ip, details }, clock());

  // ---- what a backup holds ----

  interface Plan {
    domain: DomainTable | null;
    filter: BackupFilter | null;
    keyIds: string[] | null;
  }

  /** Keyset pages of one table (optionally narrowed). */
  async function* pages(table: string, key: string, narrow?: Narrow): AsyncGenerator<Row[]> {
    let last: unknown = null;
    for (;;) {
      let q = loose.selectFrom(table).selectAll();
      if (narrow) q = narrow(q);
      if (last !== null) q = q.where(key, '>', last);
      const rows = (await q.orderBy(key).limit(PAGE).execute()) as Row[];
      if (rows.length === 0) return;
      yield rows;
      last = rows[rows.length - 1]![key];
      if (rows.length < PAGE) return;
    }
  }

  async function* offsetPages(table: string, order: readonly string[]): AsyncGenerator<Row[]> {
    for (let offset = 0; ; offset += PAGE) {
      let q = loose.selectFrom(table).selectAll();
      for (const c of order) q = q.orderBy(c);
      const rows = (await q.offset(offset).limit(PAGE).execute()) as Row[];
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < PAGE) return;
    }
  }

  /** Narrowing of kms_key for a plan. */
  function keyNarrow(plan: Plan) {
    return <O>(q: SelectQueryBuilder<LooseSchema, string, O>) => {
      if (plan.keyIds) return q.where('id', 'in', plan.keyIds.length ? plan.keyIds : ['']);
      q = q.where('domain_id', '=', plan.domain!.id);
      if (plan.filter) {
        const f = plan.filter;
        q = q.where((eb) => {
          const any = [];
          if (f.key_ids.length) any.push(eb('id', 'in', f.key_ids));
          if (f.key_name) any.push(eb('name', 'like', `%${f.key_name.replace(/[%_\\]/g, (c) => `\\${c}`)}%`));
          return any.length ? eb.or(any) : eb.val(false);
        });
      }
      return q;
    };
  }

  async function count(table: string, narrow?: Narrow): Promise<number> {
    let q = loose.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
    if (narrow) q = narrow(q);
    const row = (await q.executeTakeFirst()) as { n: string | number } | undefined;
    return Number(row?.n ?? 0);
  }

  /** Every (table, narrowing) of a plan, in restore order. */
  function sources(
    scope: BackupScope,
    plan: Plan,
  ): { table: string; key: string; order?: readonly string[]; narrow?: Narrow }[] {
    if (scope === 'system') return SYSTEM_TABLES.map((t) => ({ ...t }));
    const d = plan.domain?.id ?? '';
    const inDomain = <O>(q: SelectQueryBuilder<LooseSchema, string, O>) => q.where('domain_id', '=', d);
    const keys = { table: 'kms_key', key: 'id', narrow: keyNarrow(plan) };
    if (scope === 'key_rotation') return [keys, { table: 'kms_key_version', key: '' }];
    if (scope === 'partial') {
      const ids = plan.filter?.cert_ids ?? [];
      return [
        keys,
        { table: 'kms_key_version', key: '' },
        {
          table: 'cert_certificate',
          key: 'id',
          narrow: <O>(q: SelectQueryBuilder<LooseSchema, string, O>) =>
            inDomain(q).where('id', 'in', ids.length ? ids : ['']),
        },
      ];
    }
    return [
      keys,
      { table: 'kms_key_version', key: '' },
      { table: 'cert_ca', key: 'id', narrow: inDomain },
      {
        table: 'cert_crl',
        key: 'ca_id',
        narrow: <O>(q: SelectQueryBuilder<LooseSchema, string, O>) =>
          q.where('ca_id', 'in', loose.selectFrom('cert_ca').select('id').where('domain_id', '=', d)),
      },
      { table: 'cert_certificate', key: 'id', narrow: inDomain },
      { table: 'cert_external', key: 'id', narrow: inDomain },
    ];
  }

  function domainRecord(row: DomainTable, wrap: Buffer): ArchiveRecord {
    const kek = keyring.domainKek(row.id, row.kek_wrapped);
    const { kek_wrapped: _dropped, ...rest } = row;
    return { t: 'domain', r: rest, kek: aeadSeal(wrap, kek, kekAad(row.id)) };
  }

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

  /**
   * Writes the archive of a queued backup. `job` is the backup job's run: every page renews
   * its lease (and stops this node if another node took it) and checks for a shutdown.
   */
  async function dump(
    backup: BackupTable,
    plan: Plan,
    key: BackupKeyTable,
    job: JobRun<BackupCheckpoint>,
  ): Promise<void> {
    const salt = newSalt();
    let hsm: ArchiveHeader['hsm'];
    let material = keys.material(key);
    if (backup.tied_to_hsm === 1) {
      const secret = randomBytes(32);
      try {
        hsm = await deps.hsm().seal(secret, hsmSecretAad(salt));
        const bound = hsmBoundKey(material, secret, Buffer.from(salt, 'base64'));
        material.fill(0);
        material = bound;
      } finally {
        secret.fill(0);
      }
    }
    const wrap = kekWrapKey(material, Buffer.from(salt, 'base64'));
    const list = sources(backup.scope, plan);
    const counts: Record<string, number> = {};
    for (const s of list) if (s.table !== 'kms_key_version') counts[s.table] = await count(s.table, s.narrow);
    const total = Object.values(counts).reduce((a, b) => a + b, 0) || 1;
    const header: ArchiveHeader = {
      format_version: BACKUP_FORMAT_VERSION,
      scope: backup.scope,
      domain_id: backup.domain_id,
      domain_name: backup.domain_name,
      created_at: backup.created_at,
      source_version: PRODUCT_VERSION,
      counts,
      backup_key_id: key.id,
      backup_key_kcv: key.kcv,
      salt,
      description: backup.description,
      ...(hsm ? { hsm } : {}),
    };
    const path = fileOf(backup.id);
    const temp = `${path}.part`;
    // What a node that stopped while writing this backup left of it.
    await rm(temp, { force: true });
    const writer: ArchiveWriter = createArchiveWriter(temp, material, header);
    material.fill(0);
    const written: Record<string, number> = {};
    let saved = performance.now();
    let done = 0;
    let shown = 0;
    const put = async (record: ArchiveRecord, table: string) => {
      await writer.write(record);
      written[table] = (written[table] ?? 0) + 1;
    };
    try {
      // Domain rows first: their KEKs, wrapped under the backup key.
      if (backup.scope !== 'system') {
        const domainIds =
          backup.scope === 'key_rotation'
            ? (
                await db
                  .selectFrom('kms_key')
                  .select('domain_id')
                  .distinct()
                  .where('id', 'in', plan.keyIds!.length ? plan.keyIds! : [''])
                  .execute()
              ).map((r) => r.domain_id)
            : [plan.domain!.id];
        for (const id of domainIds) {
          const row = await db
            .selectFrom('domain')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          await put(domainRecord(row, wrap), 'domain');
        }
      }
      for (const s of list) {
        if (s.table === 'kms_key_version') continue; // written with each page of keys
        const iter = s.order ? offsetPages(s.table, s.order) : pages(s.table, s.key, s.narrow);
        for await (const rows of iter) {
          for (const r of rows) {
            if (s.table === 'domain') await put(domainRecord(r as unknown as DomainTable, wrap), 'domain');
            else await put({ t: s.table, r }, s.table);
          }
          if (s.table === 'kms_key') {
            const ids = rows.map((r) => r.id as string);
            const domainOf = new Map(rows.map((r) => [r.id as string, r.domain_id as string]));
            const versions = await db
              .selectFrom('kms_key_version')
              .selectAll()
              .where('key_id', 'in', ids)
              .orderBy('key_id')
              .orderBy('version')
              .execute();
            for (const v of versions)
              await put(
                { t: 'kms_key_version', r: v, d: domainOf.get(v.key_id) } as ArchiveRecord,
                'kms_key_version',
              );
          }
          done += rows.length;
          job.signal.throwIfAborted();
          if (performance.now() - saved > SAVE_EVERY_MS) {
            await job.save({ backup: backup.id });
            saved = performance.now();
          }
          const progress = Math.min(99, Math.floor((done * 100) / total));
          if (progress >= shown + 5) {
            shown = progress;
            await db.updateTable('backup').set({ progress }).where('id', '=', backup.id).execute();
          }
        }
      }
      await writer.write({ t: 'end', counts: written });
      const { size, sha256 } = await writer.finish();
      await rename(temp, path);
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('backup')
          .set({
            status: 'completed',
            progress: 100,
            size,
            sha256,
            counts: JSON.stringify(written),
            finished_at: clock().toISOString(),
          })
          .where('id', '=', backup.id)
          .execute();
      });
    } catch (err) {
      await writer.abort().catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    } finally {
      wrap.fill(0);
    }
  }

  async function start(
    who: Requester,
    fields: {
      scope: BackupScope;
      description: string;
      keyId?: string | undefined;
      filter: BackupFilter | null;
      keyIds: string[] | null;
      tiedToHsm?: boolean;
    },
    /** Answer once the archive is written (or failed), unless the signal stops the wait first. */
    wait: false | { signal?: AbortSignal | undefined },
  ): Promise<BackupRow> {
    if (fields.scope === 'system' && !who.systemScope)
      throw forbidden('backup.systemOnly', { scope: 'system' });
    if (fields.tiedToHsm) {
      if (fields.scope !== 'system') throw invalid('backup.hsmSystemOnly');
      if (!(await deps.hsm().bound())) throw stateForbids('backup.hsmNotBound');
    }
    if (
      fields.scope === 'partial' &&
      (!fields.filter ||
        (!fields.filter.key_ids.length && !fields.filter.key_name && !fields.filter.cert_ids.length))
    ) {
      throw invalid('backup.filterEmpty');
    }
    const keyScope = fields.scope === 'system' || fields.scope === 'key_rotation' ? 'system' : 'domain';
    let key: BackupKeyTable | undefined;
    if (fields.keyId) {
      key = await keys.byId(fields.keyId);
      if (!key || !(await keys.usable(who, key))) throw notFound('backup.keyNotFound', { id: fields.keyId });
      if (keyScope === 'system' && key.scope !== 'system')
        throw invalid('backup.keyScope', { name: key.name, actual: key.scope, expected: keyScope });
    } else {
      key =
        (await keys.defaultKey(keyScope, who.domainId)) ??
        (keyScope === 'domain' && who.systemScope
          ? await keys.defaultKey('system', who.domainId)
          : undefined);
      if (!key)
        throw stateForbids(keyScope === 'system' ? 'backup.noDefaultKey' : 'backup.noDefaultDomainKey');
    }
    const domain = await db
      .selectFrom('domain')
      .selectAll()
      .where('id', '=', who.domainId)
      .executeTakeFirstOrThrow();
    const row: BackupTable = {
      id: uuidv7(),
      scope: fields.scope,
      domain_id: domain.id,
      domain_name: domain.name,
      description: fields.description,
      backup_key_id: key.id,
      filters: JSON.stringify(fields.filter ?? (fields.keyIds ? { key_ids: fields.keyIds } : {})),
      status: 'backing_up',
      progress: 0,
      restore_status: null,
      restored_at: null,
      error: null,
      size: 0,
      sha256: '',
      counts: '{}',
      format_version: BACKUP_FORMAT_VERSION,
      source_version: PRODUCT_VERSION,
      uploaded: 0,
      tied_to_hsm: fields.tiedToHsm ? 1 : 0,
      created_at: clock().toISOString(),
      created_by: who.username,
      finished_at: null,
      node: null,
    };
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('backup').values(row).execute();
      await audit(trx, who, 'backup.create', row.id, { scope: row.scope, backup_key: key.id });
    });
    const kicked = kick();
    if (wait) {
      await kicked;
      const done = await settled(row.id, wait.signal);
      if (done.status === 'failed') throw failure(done);
      return toRow(done);
    }
    return toRow(row);
  }

  // ---- the backup job: queued backups, one at a time, on the node holding its lease ----

  /** Runs the backup job now if this node can take its lease (otherwise its holder will). */
  function kick(): Promise<unknown> {
    return deps.jobs.trigger(BACKUP_JOB).catch((err: unknown) => {
      deps.log.error({ err }, 'backup job failed');
    });
  }

  /** The error a failed backup was stored with, as one to answer. */
  const failure = (row: BackupTable) =>
    new KspError(Code.STATE_FORBIDS, 'backup.failed', { id: row.id, reason: row.error ?? '-' });

  /** Waits until a backup is completed or failed (its writer may be another node). */
  async function settled(id: string, signal: AbortSignal | undefined): Promise<BackupTable> {
    for (;;) {
      const row = await db.selectFrom('backup').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('backup.notFound', { id });
      if (row.status !== 'backing_up') return row;
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  }

  async function planOf(row: BackupTable): Promise<Plan> {
    const domain = await db
      .selectFrom('domain')
      .selectAll()
      .where('id', '=', row.domain_id)
      .executeTakeFirst();
    const filters = JSON.parse(row.filters) as BackupFilter & { key_ids?: string[] };
    return {
      domain: domain ?? null,
      filter: row.scope === 'partial' ? filters : null,
      keyIds: row.scope === 'key_rotation' ? (filters.key_ids ?? []) : null,
    };
  }

  /**
   * The backup job's body: writes every queued backup, oldest first. One left half written by
   * a node that stopped is still `backing_up` and is written again from the start (its partial
   * file is replaced). A shutdown or a lost lease leaves the backup queued for the next holder.
   */
  async function runJob(job: JobRun<BackupCheckpoint>): Promise<void> {
    for (;;) {
      job.signal.throwIfAborted();
      const row = await db
        .selectFrom('backup')
        .selectAll()
        .where('status', '=', 'backing_up')
        .orderBy('created_at')
        .orderBy('id')
        .executeTakeFirst();
      if (!row) return;
      await db.updateTable('backup').set({ node: deps.node, progress: 0 }).where('id', '=', row.id).execute();
      try {
        const key = await keys.byId(row.backup_key_id);
        if (!key) throw notFound('backup.keyNotFound', { id: row.backup_key_id });
        if (row.scope !== 'system' && row.scope !== 'key_rotation' && !(await planOf(row)).domain)
          throw notFound('backup.domainGone', { domain: row.domain_name });
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        await dump({ ...row, node: deps.node }, await planOf(row), key, job);
      } catch (err) {
        if (job.signal.aborted || err instanceof LeaseLostError) throw err;
        deps.log.error({ err, backup: row.id }, 'backup failed');
        const message =
          err instanceof KspError ? storedError(err) : storedMessage('backup.internal', { id: row.id });
        await db
          .updateTable('backup')
          .set({ status: 'failed', error: message, finished_at: clock().toISOString() })
          .where('id', '=', row.id)
          .execute();
      }
    }
  }

  // ---- restore ----

  const archiveError = (err: unknown): unknown =>
    err instanceof ArchiveError
      ? new KspError(
          err.messageKey === 'backup.newerFormat' || err.messageKey === 'backup.missingKey'
            ? Code.STATE_FORBIDS
            : Code.INVALID,
          err.messageKey,
          err.params,
        )
      : err;

  async function insertRows(trx: Executor, table: string, rows: Row[]) {
    if (!rows.length) return;
    if (deps.engine === 'postgres') {
      // One JSON parameter per batch, which PostgreSQL maps onto the table's columns by name and
      // type: a VALUES list of 25,000 parameters costs more to parse and plan than the insert.
      await sql`insert into ${sql.table(table)}
                select * from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`.execute(
        trx,
      );
      return;
    }
    await (trx as unknown as LooseDb).insertInto(table).values(rows).execute();
  }

  async function resolveDomain(
    trx: Executor,
    who: Requester,
    scope: BackupScope,
    record: { r: Row; kek?: string },
    wrap: Buffer,
  ): Promise<DomainTarget> {
    const sourceId = String(record.r.id);
    if (!record.kek) throw new ArchiveError('backup.malformed', { reason: 'domain without its key' });
    let sourceKek: Buffer;
    try {
      sourceKek = aeadOpen(wrap, record.kek, kekAad(sourceId));
    } catch {
      throw new ArchiveError('backup.tampered', { chunk: 'kek' });
    }
    if (scope === 'system') {
      return { id: sourceId, sourceKek, targetKek: sourceKek, rewrap: false };
    }
    let target = await trx.selectFrom('domain').selectAll().where('id', '=', sourceId).executeTakeFirst();
    if (!who.systemScope) {
      if (!target || target.id !== who.domainId)
        throw forbidden('backup.otherDomain', { domain: String(record.r.name) });
    }
    if (!target && scope === 'domain') {
      target = await trx
        .selectFrom('domain')
        .selectAll()
        .where('name', '=', String(record.r.name))
        .executeTakeFirst();
      if (!target) {
        const root = await trx
          .selectFrom('domain')
          .selectAll()
          .where('name', '=', ROOT_DOMAIN)
          .executeTakeFirstOrThrow();
        target = {
          id: sourceId,
          name: String(record.r.name),
          description: typeof record.r.description === 'string' ? record.r.description : '',
          parent_id: root.id,
          kek_wrapped: keyring.wrapDomainKek(sourceId, sourceKek),
          created_at: clock().toISOString(),
        };
        await trx.insertInto('domain').values(target).execute();
      }
    }
    if (!target) throw notFound('backup.otherDomain', { domain: String(record.r.name) });
    const targetKek = keyring.domainKek(target.id, target.kek_wrapped);
    return { id: target.id, sourceKek, targetKek, rewrap: !targetKek.equals(sourceKek) };
  }

  async function clearSystem(trx: Executor) {
    const t = trx as unknown as LooseDb;
    for (const table of ['session', 'mfa_pending']) await t.deleteFrom(table).execute();
    for (const spec of [...SYSTEM_TABLES].reverse()) {
      if (spec.table === 'domain') await t.updateTable('domain').set({ parent_id: null }).execute();
      await t.deleteFrom(spec.table).execute();
    }
  }

  async function clearDomain(trx: Executor, domainId: string) {
    await trx
      .deleteFrom('cert_crl')
      .where('ca_id', 'in', (eb) => eb.selectFrom('cert_ca').select('id').where('domain_id', '=', domainId))
      .execute();
    await trx.deleteFrom('cert_certificate').where('domain_id', '=', domainId).execute();
    await trx.deleteFrom('cert_ca').where('domain_id', '=', domainId).execute();
    await trx.deleteFrom('cert_external').where('domain_id', '=', domainId).execute();
    await trx
      .deleteFrom('kms_key_version')
      .where('key_id', 'in', (eb) => eb.selectFrom('kms_key').select('id').where('domain_id', '=', domainId))
      .execute();
    await trx.deleteFrom('kms_key').where('domain_id', '=', domainId).execute();
  }

  /** Partial and key rotation restores replace the rows they hold, one by one, within their domain. */
  async function replaceById(
    trx: Executor,
    table: 'kms_key' | 'cert_certificate',
    rows: Row[],
    domainId: string,
  ) {
    const ids = rows.map((r) => String(r.id));
    const found = await trx.selectFrom(table).select(['id', 'domain_id']).where('id', 'in', ids).execute();
    const foreign = found.find((f) => f.domain_id !== domainId);
    if (foreign)
      throw new KspError(Code.CONFLICT, 'backup.idTaken', {
        kind: table === 'kms_key' ? 'key' : 'certificate',
        id: foreign.id,
      });
    if (table === 'kms_key') await trx.deleteFrom('kms_key_version').where('key_id', 'in', ids).execute();
    await trx.deleteFrom(table).where('id', 'in', ids).execute();
  }

  async function apply(
    trx: Executor,
    who: Requester,
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
      if (!t)
        throw new ArchiveError('backup.malformed', { reason: 'a row of a domain the backup does not hold' });
      return t;
    };

    const targetIds = () => [...new Set([...targets.values()].map((t) => t.id))];
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
      if (scope !== 'system' && table === 'kms_key_version') {
        // Versions only of keys this restore wrote, in the domain it wrote them to.
        const ids = [...new Set(rows.map((r) => String(r.key_id)))];
        const mine = await trx
          .selectFrom('kms_key')
          .select('id')
          .where('id', 'in', ids)
          .where('domain_id', 'in', targetIds())
          .execute();
        if (mine.length !== ids.length)
          throw new ArchiveError('backup.malformed', { reason: 'a key version without its key' });
      }
      if (scope !== 'system' && table === 'cert_crl') {
        const ids = rows.map((r) => String(r.ca_id));
        const mine = await trx
          .selectFrom('cert_ca')
          .select('id')
          .where('id', 'in', ids)
          .where('domain_id', 'in', targetIds())
          .execute();
        if (mine.length !== ids.length)
          throw new ArchiveError('backup.malformed', { reason: 'a CRL without its CA' });
      }
      await insertRows(trx, table, rows);
    };

    for await (const record of records) {
      if (ended) throw new ArchiveError('backup.malformed', { reason: 'records after the end' });
      if (record.t === 'end') {
        ended = (record as { counts: Record<string, number> }).counts;
        continue;
      }
      const { t: table, r: row, kek } = record as { t: string; r: Row; kek?: string; d?: string };
      if (typeof row !== 'object' || row === null)
        throw new ArchiveError('backup.malformed', { reason: 'a record without a row' });
      if (scope === 'system' ? !SYSTEM_TABLES.some((s) => s.table === table) : !DOMAIN_TABLES.has(table)) {
        throw new ArchiveError('backup.malformed', { reason: `table ${table} in a ${scope} backup` });
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
        const target = await resolveDomain(trx, who, scope, { r: row, ...(kek ? { kek } : {}) }, wrap);
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
      if (scope === 'system' && !cleared)
        throw new ArchiveError('backup.malformed', { reason: 'rows before the domains' });
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
            throw new ArchiveError('backup.malformed', {
              reason: `key ${String(row.key_id)} material does not open`,
            });
          }
          out = { ...row, material_wrapped: aeadSeal(d.targetKek, plain, aad) };
          plain.fill(0);
        }
      } else if ('domain_id' in row && scope !== 'system') {
        out = { ...row, domain_id: targetOf(row.domain_id).id };
      }
      batch.rows.push(out);
    }
    await flush();
    if (!ended) throw new ArchiveError('backup.truncated');
    if (scope === 'system' && !cleared) throw new ArchiveError('backup.malformed', { reason: 'no domains' });
    for (const [table, n] of Object.entries(ended)) {
      if ((read[table] ?? 0) !== n)
        throw new ArchiveError('backup.malformed', {
          reason: `${table}: ${read[table] ?? 0} rows, ${n} announced`,
        });
    }
    for (const p of parents) {
      if (p.parent)
        await trx.updateTable('domain').set({ parent_id: p.parent }).where('id', '=', p.id).execute();
    }
    return { read, domains: targetIds() };
  }

  /** The key tally (migration 007) of the given domains (all: null), counted afresh. */
  async function recountTally(trx: Executor, domains: string[] | null) {
    const group = sql.raw('domain_id, state, algorithm, object_type, substr(created_at, 1, 7)');
    if (domains && domains.length === 0) return;
    const only = domains ? sql`where domain_id in (${sql.join(domains)})` : sql``;
    await sql`delete from kms_key_tally ${only}`.execute(trx);
    await sql`insert into kms_key_tally (domain_id, state, algorithm, object_type, month, keys)
              select ${group}, count(*) from kms_key ${only} group by ${group}`.execute(trx);
  }

  async function restore(who: Requester, id: string): Promise<BackupRow> {
    const backup = await find(who, id);
    if (backup.status !== 'completed')
      throw stateForbids('backup.notCompleted', { id, status: backup.status });
    if (backup.scope === 'system' && !who.systemScope)
      throw forbidden('backup.systemOnly', { scope: 'system' });
    if (restoring) throw stateForbids('backup.busy');
    requireFile(backup);
    restoring = true;
    try {
      let header: ArchiveHeader;
      try {
        header = await readArchiveHeader(fileOf(id));
      } catch (err) {
        throw archiveError(err);
      }
      const key = await keys.byId(header.backup_key_id);
      if (!key || !(await keys.usable(who, key))) {
        throw new KspError(Code.STATE_FORBIDS, 'backup.missingKey', { id: header.backup_key_id });
      }
      await db
        .updateTable('backup')
        .set({ restore_status: 'restoring', error: null })
        .where('id', '=', id)
        .execute();
      let material = keys.material(key);
      if (header.hsm) material = await hsmBound(material, header);
      const wrap = kekWrapKey(material, Buffer.from(header.salt, 'base64'));
      try {
        // PostgreSQL: a row trigger bumping one tally row per key costs O(n²) in one transaction
        // (each update leaves a row version the next must step over); a bulk restore turns it
        // off (transactionally) and recounts the domains it replaced instead.
        const bulk = deps.engine === 'postgres' && (header.scope === 'system' || header.scope === 'domain');
        await db.transaction().execute(async (trx) => {
          if (bulk) await sql`alter table kms_key disable trigger kms_key_tally`.execute(trx);
          const { read, domains } = await apply(
            trx,
            who,
            header,
            readArchive(fileOf(id), header, material, key.kcv),
            wrap,
          );
          if (bulk) {
            await recountTally(trx, header.scope === 'system' ? null : domains);
            await sql`alter table kms_key enable trigger kms_key_tally`.execute(trx);
          }
          await audit(trx, who, 'backup.restore', id, { scope: header.scope, rows: JSON.stringify(read) });
        });
      } catch (err) {
        const mapped = archiveError(err);
        const failure =
          mapped instanceof KspError
            ? mapped
            : new KspError(Code.INVALID, 'backup.malformed', { reason: 'its rows do not fit this database' });
        if (!(mapped instanceof KspError)) deps.log.error({ err, backup: id }, 'restore failed');
        await db
          .transaction()
          .execute(async (trx) => {
            await trx
              .updateTable('backup')
              .set({ restore_status: 'failed', error: storedError(failure) })
              .where('id', '=', id)
              .execute();
            await audit(
              trx,
              who,
              'backup.restore',
              id,
              { reason: failure.messageKey, ...failure.params },
              'failure',
            );
          })
          .catch(() => undefined);
        throw failure;
      } finally {
        material.fill(0);
        wrap.fill(0);
      }
      keyring.forgetKeks();
      deps.restored(header.scope);
      // A system restore replaced this table too: the row may be gone (another install's backups).
      const at = clock().toISOString();
      const existing = await db.selectFrom('backup').select('id').where('id', '=', id).executeTakeFirst();
      if (existing)
        await db
          .updateTable('backup')
          .set({ restore_status: 'restored', restored_at: at, error: null })
          .where('id', '=', id)
          .execute();
      return toRow({ ...backup, restore_status: 'restored', restored_at: at, error: null });
    } finally {
      restoring = false;
    }
  }

  return {
    async list(
      actor: Actor,
      meta: Pick<RequestMeta, 'lang'>,
      q: { page: number; page_size: number; scope?: BackupScope | undefined },
    ) {
      let base = db.selectFrom('backup');
      if (!actor.systemScope)
        base = base.where('domain_id', '=', actor.domainId).where('scope', '!=', 'system');
      if (q.scope) base = base.where('scope', '=', q.scope);
      const rows = await base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset((q.page - 1) * q.page_size)
        .limit(q.page_size)
        .execute();
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      return { data: rows.map((r) => toRow(r, meta.lang)), total: Number(total?.n ?? 0) };
    },
    detail: async (actor: Actor, meta: RequestMeta, id: string) =>
      toRow(await find(fromActor(actor, meta), id), meta.lang),
    create: (
      actor: Actor,
      meta: RequestMeta,
      body: {
        scope: 'system' | 'domain' | 'partial';
        description: string;
        backup_key_id?: string | undefined;
        filters?: BackupFilter | undefined;
        tied_to_hsm?: boolean | undefined;
      },
    ) =>
      start(
        fromActor(actor, meta),
        {
          scope: body.scope,
          description: body.description,
          keyId: body.backup_key_id,
          filter: body.scope === 'partial' ? (body.filters ?? null) : null,
          keyIds: null,
          tiedToHsm: body.tied_to_hsm ?? false,
        },
        false,
      ),
    runJob,
    /** The key rotation backup the scheduler takes before rotating (waits until it is written). */
    async takeRotation(input: {
      keyIds: string[];
      actor: string;
      description: string;
      signal?: AbortSignal | undefined;
    }) {
      const root = await db
        .selectFrom('domain')
        .selectAll()
        .where('name', '=', ROOT_DOMAIN)
        .executeTakeFirstOrThrow();
      const who: Requester = {
        subject: {
          userId: null,
          username: input.actor,
          domainId: root.id,
          domainName: root.name,
          source: 'scheduler',
        },
        username: input.actor,
        domainId: root.id,
        domainName: root.name,
        systemScope: true,
        ip: '',
      };
      const row = await start(
        who,
        { scope: 'key_rotation', description: input.description, filter: null, keyIds: input.keyIds },
        { signal: input.signal },
      );
      return { id: row.id };
    },
    async download(actor: Actor, meta: RequestMeta, id: string) {
      const who = fromActor(actor, meta);
      const row = await find(who, id);
      if (row.status !== 'completed') throw stateForbids('backup.notCompleted', { id, status: row.status });
      requireFile(row);
      await audit(db, who, 'backup.download', id, {});
      return new StreamedFile(
        `ksp-backup-${row.scope}-${row.created_at.slice(0, 10)}-${id.slice(-8)}.kspb`,
        'application/octet-stream',
        createReadStream(fileOf(id)),
      );
    },
    async upload(actor: Actor, meta: RequestMeta, file: Readable | null) {
      if (!file) throw invalid('backup.uploadMissing');
      const who = fromActor(actor, meta);
      const id = uuidv7();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = `${fileOf(id)}.part`;
      const hash = createHash('sha256');
      file.on('data', (c: Buffer) => hash.update(c));
      try {
        await pipeline(file, createWriteStream(temp, { mode: 0o600, flags: 'wx' }));
        let header: ArchiveHeader;
        try {
          header = await readArchiveHeader(temp);
        } catch (err) {
          throw archiveError(err);
        }
        if (header.scope === 'system' && !who.systemScope)
          throw forbidden('backup.systemOnly', { scope: 'system' });
        if (!['system', 'domain', 'partial', 'key_rotation'].includes(header.scope))
          throw invalid('backup.malformed', { reason: 'scope' });
        const size = (await stat(temp)).size;
        const row: BackupTable = {
          id,
          scope: header.scope,
          domain_id: who.systemScope ? header.domain_id : who.domainId,
          domain_name: who.systemScope ? String(header.domain_name).slice(0, 64) : who.domainName,
          description: String(header.description ?? '').slice(0, 200),
          backup_key_id: header.backup_key_id.slice(0, 64),
          filters: '{}',
          status: 'completed',
          progress: 100,
          restore_status: null,
          restored_at: null,
          error: null,
          size,
          sha256: hash.digest('hex'),
          counts: JSON.stringify(
            Object.fromEntries(
              Object.entries(header.counts ?? {})
                .filter(([, v]) => typeof v === 'number')
                .slice(0, 32),
            ),
          ),
          format_version: header.format_version,
          source_version: String(header.source_version).slice(0, 32),
          uploaded: 1,
          tied_to_hsm: header.hsm ? 1 : 0,
          created_at: clock().toISOString(),
          created_by: who.username,
          finished_at: clock().toISOString(),
          node: deps.node,
        };
        await rename(temp, fileOf(id));
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('backup').values(row).execute();
          await audit(trx, who, 'backup.upload', id, { scope: row.scope, sha256: row.sha256 });
        });
        return toRow(row);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },
    restore: (actor: Actor, meta: RequestMeta, id: string) => restore(fromActor(actor, meta), id),
    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const who = fromActor(actor, meta);
      const rows: BackupTable[] = [];
      for (const id of ids) rows.push(await find(who, id));
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          await trx.deleteFrom('backup').where('id', '=', row.id).execute();
          await audit(trx, who, 'backup.delete', row.id, { scope: row.scope });
        }
      });
      for (const row of rows) await rm(fileOf(row.id), { force: true });
      return { deleted: rows.length };
    },
    /**
     * Restores a stopped process left under way are failed (their transaction was rolled back:
     * nothing changed). Only this node's: a restore reads an archive in this node's directory.
     * Backups left half written need nothing: they are still queued, and the backup job
     * writes them again.
     */
    async failInterrupted() {
      const unfinished = await db
        .selectFrom('backup')
        .select(['id'])
        .where('restore_status', '=', 'restoring')
        .execute();
      for (const row of unfinished) {
        if (!existsSync(fileOf(row.id))) continue;
        await db
          .updateTable('backup')
          .set({ restore_status: 'failed', error: storedMessage('backup.restoreInterrupted') })
          .where('id', '=', row.id)
          .where('restore_status', '=', 'restoring')
          .execute();
      }
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
