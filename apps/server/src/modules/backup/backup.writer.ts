import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { BACKUP_FORMAT_VERSION, Code, PRODUCT_VERSION, type BackupFilter } from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { BackupKeyTable, BackupTable, DomainTable } from '../../platform/db/schema.js';
import { KspError, notFound } from '../../platform/errors.js';
import { LeaseLostError, type JobRun, type Jobs } from '../../platform/jobs/jobs.js';
import { aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import type { ModuleServices } from '../../platform/module.js';
import { storedError, storedMessage } from '../../platform/stored-message.js';
import type { BackupKeyService } from './backup-key.service.js';
import {
  countRows,
  domainsOfKeys,
  offsetPage,
  sourcesOf,
  tablePage,
  versionsOfKeys,
  type Plan,
  type Source,
} from './backup.data.store.js';
import type { ArchiveFiles } from './backup.files.js';
import {
  createArchiveWriter,
  hsmBoundKey,
  hsmSecretAad,
  kekAad,
  kekWrapKey,
  newSalt,
  type ArchiveHeader,
  type ArchiveRecord,
  type ArchiveWriter,
} from './backup.format.js';
import { domainById, findBackup, oldestQueued, updateBackup } from './backup.store.js';
import type { Row } from './backup.tables.js';

/** The jobs service's name for writing backups (one lease: one node of a cluster at a time). */
export const BACKUP_JOB = 'backup';
/** What the backup job saves: the backup it is writing. */
export interface BackupCheckpoint {
  backup: string;
}
/** Rows read per page. */
const PAGE = 1000;
/** A writer renews the job's lease at least this often (the lease lasts 60 s). */
const SAVE_EVERY_MS = 5_000;
/** How often a caller waiting for an archive looks at its status. */
const WAIT_POLL_MS = 250;

/** The error a failed backup was stored with, as one to answer. */
export const backupFailure = (row: BackupTable) =>
  new KspError(Code.STATE_FORBIDS, 'backup.failed', { id: row.id, reason: row.error ?? '-' });

/**
 * The backup job (README.md "Limits and seams"): the node holding its lease writes every queued
 * backup, oldest first, streaming rows page by page into an archive under the backup key; key
 * material stays wrapped under its domain KEK, and the KEK travels wrapped under the backup key.
 */
export function createBackupWriter(deps: {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  keys: BackupKeyService;
  files: ArchiveFiles;
  /** This node's name, recorded on the archives it writes. */
  node: string;
  /** Backups are written by the jobs service's `backup` job (BACKUP_JOB), under its lease. */
  jobs: Jobs;
  log: { error(details: object, message: string): void };
  /** The bound HSM's sealing, for HSM-bound backups (modules/hsm). */
  hsm: () => ModuleServices['hsmSecrets'];
}) {
  const { db, clock, keyring, keys, files } = deps;

  /** Pages of one table: keyset on its key, or by offset over its order (composite keys). */
  async function* pages(s: Source): AsyncGenerator<Row[]> {
    let last: unknown = null;
    for (let offset = 0; ; offset += PAGE) {
      const rows = s.order
        ? await offsetPage(db, s.table, s.order, offset, PAGE)
        : await tablePage(db, s, last, PAGE);
      if (rows.length === 0) return;
      yield rows;
      last = rows[rows.length - 1]![s.key];
      if (rows.length < PAGE) return;
    }
  }

  function domainRecord(row: DomainTable, wrap: Buffer): ArchiveRecord {
    const kek = keyring.domainKek(row.id, row.kek_wrapped);
    const { kek_wrapped: _dropped, ...rest } = row;
    return { t: 'domain', r: rest, kek: aeadSeal(wrap, kek, kekAad(row.id)) };
  }

  /** The archive's key, its salt and (HSM-bound) the sealed secret: the backup key, or bound to the HSM. */
  async function archiveKey(backup: BackupTable, key: BackupKeyTable) {
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
    return { salt, hsm, material };
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
    const { salt, hsm, material } = await archiveKey(backup, key);
    const wrap = kekWrapKey(material, Buffer.from(salt, 'base64'));
    const list = sourcesOf(db, backup.scope, plan);
    const counts: Record<string, number> = {};
    for (const s of list)
      if (s.table !== 'kms_key_version') counts[s.table] = await countRows(db, s.table, s.narrow);
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
    const path = files.fileOf(backup.id);
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
          backup.scope === 'key_rotation' ? await domainsOfKeys(db, plan.keyIds!) : [plan.domain!.id];
        for (const id of domainIds) {
          const row = await domainById(db, id);
          if (!row) throw new Error(`domain ${id} not found`);
          await put(domainRecord(row, wrap), 'domain');
        }
      }
      for (const s of list) {
        if (s.table === 'kms_key_version') continue; // written with each page of keys
        for await (const rows of pages(s)) {
          for (const r of rows) {
            if (s.table === 'domain') await put(domainRecord(r as unknown as DomainTable, wrap), 'domain');
            else await put({ t: s.table, r }, s.table);
          }
          if (s.table === 'kms_key') {
            const domainOf = new Map(rows.map((r) => [r.id as string, r.domain_id as string]));
            for (const v of await versionsOfKeys(db, [...domainOf.keys()]))
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
            await updateBackup(db, backup.id, { progress });
          }
        }
      }
      await writer.write({ t: 'end', counts: written });
      const { size, sha256 } = await writer.finish();
      await rename(temp, path);
      await updateBackup(db, backup.id, {
        status: 'completed',
        progress: 100,
        size,
        sha256,
        counts: JSON.stringify(written),
        finished_at: clock().toISOString(),
      });
    } catch (err) {
      await writer.abort().catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    } finally {
      wrap.fill(0);
    }
  }

  async function planOf(row: BackupTable): Promise<Plan> {
    const domain = await domainById(db, row.domain_id);
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
      const row = await oldestQueued(db);
      if (!row) return;
      await updateBackup(db, row.id, { node: deps.node, progress: 0 });
      try {
        const key = await keys.byId(row.backup_key_id);
        if (!key) throw notFound('backup.keyNotFound', { id: row.backup_key_id });
        if (row.scope !== 'system' && row.scope !== 'key_rotation' && !(await planOf(row)).domain)
          throw notFound('backup.domainGone', { domain: row.domain_name });
        files.ensureDir();
        await dump({ ...row, node: deps.node }, await planOf(row), key, job);
      } catch (err) {
        if (job.signal.aborted || err instanceof LeaseLostError) throw err;
        deps.log.error({ err, backup: row.id }, 'backup failed');
        const message =
          err instanceof KspError ? storedError(err) : storedMessage('backup.internal', { id: row.id });
        await updateBackup(db, row.id, {
          status: 'failed',
          error: message,
          finished_at: clock().toISOString(),
        });
      }
    }
  }

  return {
    runJob,
    /** Runs the backup job now if this node can take its lease (otherwise its holder will). */
    kick(): Promise<unknown> {
      return deps.jobs.trigger(BACKUP_JOB).catch((err: unknown) => {
        deps.log.error({ err }, 'backup job failed');
      });
    },
    /** Waits until a backup is completed or failed (its writer may be another node). */
    async settled(id: string, signal: AbortSignal | undefined): Promise<BackupTable> {
      for (;;) {
        const row = await findBackup(db, id);
        if (!row) throw notFound('backup.notFound', { id });
        if (row.status !== 'backing_up') return row;
        signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
      }
    },
  };
}
