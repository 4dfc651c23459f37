import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { v7 as uuidv7 } from 'uuid';
import {
  BACKUP_FORMAT_VERSION,
  PRODUCT_VERSION,
  ROOT_DOMAIN,
  type BackupFilter,
  type BackupRow,
  type BackupScope,
} from '@ksp/contracts';
import type { AuditWriter, CallerRecord } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { BackupKeyTable, BackupTable } from '../../platform/db/schema.js';
import { forbidden, invalid, notFound, stateForbids } from '../../platform/errors.js';
import { StreamedFile, type Actor, type RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { storedMessage } from '../../platform/stored-message.js';
import { systemActor, systemMeta } from '../../platform/system-actor.js';
import type { BackupKeyService } from './backup-key.service.js';
import type { ArchiveFiles } from './backup.files.js';
import { readArchiveHeader, type ArchiveHeader } from './backup.format.js';
import { archiveError } from './backup.restore.js';
import { findVisible, toRow } from './backup.rows.js';
import {
  deleteBackup,
  domainById,
  domainByName,
  failRestoring,
  insertBackup,
  pageOfBackups,
  restoringIds,
} from './backup.store.js';
import { backupFailure, type createBackupWriter } from './backup.writer.js';

/** What a new backup is: its scope and description, the key asked for, what a partial or rotation backup holds. */
interface BackupOrder {
  scope: BackupScope;
  description: string;
  keyId?: string | undefined;
  filter: BackupFilter | null;
  keyIds: string[] | null;
  tiedToHsm?: boolean;
}

/**
 * The backups as the calls see them (docs/modules.md#backup-keys-and-backups): list, detail,
 * create (queued for the backup job), the scheduler's key rotation backup, download, upload,
 * delete, and the restores a stopped process left marked.
 */
export function createBackupCatalogue(deps: {
  db: Db;
  clock: Clock;
  keys: BackupKeyService;
  files: ArchiveFiles;
  audit: AuditWriter;
  node: string;
  writer: Pick<ReturnType<typeof createBackupWriter>, 'kick' | 'settled'>;
  hsm: () => ModuleServices['hsmSecrets'];
}) {
  const { db, clock, keys, files, audit, writer } = deps;

  /** The key a new backup is written under: the one asked for, else the default of its scope. */
  async function keyFor(actor: Actor, order: BackupOrder): Promise<BackupKeyTable> {
    const keyScope = order.scope === 'system' || order.scope === 'key_rotation' ? 'system' : 'domain';
    if (order.keyId) {
      const key = await keys.byId(order.keyId);
      if (!key || !(await keys.usable(actor, key))) throw notFound('backup.keyNotFound', { id: order.keyId });
      if (keyScope === 'system' && key.scope !== 'system')
        throw invalid('backup.keyScope', { name: key.name, actual: key.scope, expected: keyScope });
      return key;
    }
    const key =
      (await keys.defaultKey(keyScope, actor.domainId)) ??
      (keyScope === 'domain' && actor.systemScope
        ? await keys.defaultKey('system', actor.domainId)
        : undefined);
    if (!key) throw stateForbids(keyScope === 'system' ? 'backup.noDefaultKey' : 'backup.noDefaultDomainKey');
    return key;
  }

  /** Inserts a backup's row with its audit record, in one transaction. */
  const recorded = (
    actor: Actor,
    meta: RequestMeta,
    row: BackupTable,
    record: Omit<CallerRecord, 'target'>,
  ) =>
    db.transaction().execute(async (trx) => {
      await insertBackup(trx, row);
      await audit.byCaller(trx, actor, meta, { ...record, target: row.id });
    });

  /** Queues a backup for the job; with `wait`, answers once it is written (or failed), unless the signal stops the wait first. */
  async function start(
    actor: Actor,
    meta: RequestMeta,
    order: BackupOrder,
    wait: false | { signal?: AbortSignal | undefined },
  ): Promise<BackupRow> {
    if (order.scope === 'system' && !actor.systemScope)
      throw forbidden('backup.systemOnly', { scope: 'system' });
    if (order.tiedToHsm) {
      if (order.scope !== 'system') throw invalid('backup.hsmSystemOnly');
      if (!(await deps.hsm().bound())) throw stateForbids('backup.hsmNotBound');
    }
    if (
      order.scope === 'partial' &&
      (!order.filter ||
        (!order.filter.key_ids.length && !order.filter.key_name && !order.filter.cert_ids.length))
    ) {
      throw invalid('backup.filterEmpty');
    }
    const key = await keyFor(actor, order);
    const domain = await domainById(db, actor.domainId);
    if (!domain) throw new Error(`domain ${actor.domainId} not found`);
    const row: BackupTable = {
      id: uuidv7(),
      scope: order.scope,
      domain_id: domain.id,
      domain_name: domain.name,
      description: order.description,
      backup_key_id: key.id,
      filters: JSON.stringify(order.filter ?? (order.keyIds ? { key_ids: order.keyIds } : {})),
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
      tied_to_hsm: order.tiedToHsm ? 1 : 0,
      created_at: clock().toISOString(),
      created_by: actor.username,
      finished_at: null,
      node: null,
    };
    await recorded(actor, meta, row, {
      action: 'backup.create',
      details: { scope: row.scope, backup_key: key.id },
    });
    const kicked = writer.kick();
    if (wait) {
      await kicked;
      const done = await writer.settled(row.id, wait.signal);
      if (done.status === 'failed') throw backupFailure(done);
      return toRow(done);
    }
    return toRow(row);
  }

  /** The row of an uploaded archive, from its header (bounded: the file came from outside). */
  function uploadedRow(
    actor: Actor,
    id: string,
    header: ArchiveHeader,
    size: number,
    sha256: string,
  ): BackupTable {
    return {
      id,
      scope: header.scope,
      domain_id: actor.systemScope ? header.domain_id : actor.domainId,
      domain_name: actor.systemScope ? String(header.domain_name).slice(0, 64) : actor.domainName,
      description: String(header.description ?? '').slice(0, 200),
      backup_key_id: header.backup_key_id.slice(0, 64),
      filters: '{}',
      status: 'completed',
      progress: 100,
      restore_status: null,
      restored_at: null,
      error: null,
      size,
      sha256,
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
      created_by: actor.username,
      finished_at: clock().toISOString(),
      node: deps.node,
    };
  }

  return {
    async list(
      actor: Actor,
      meta: Pick<RequestMeta, 'lang'>,
      q: { page: number; page_size: number; scope?: BackupScope | undefined },
    ) {
      const { rows, total } = await pageOfBackups(
        db,
        { all: actor.systemScope, domainId: actor.domainId },
        q,
      );
      return { data: rows.map((r) => toRow(r, meta.lang)), total };
    },
    detail: async (actor: Actor, meta: RequestMeta, id: string) =>
      toRow(await findVisible(db, actor, id), meta.lang),
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
        actor,
        meta,
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
    /** The key rotation backup the scheduler takes before rotating (waits until it is written). */
    async takeRotation(input: {
      keyIds: string[];
      actor: string;
      description: string;
      signal?: AbortSignal | undefined;
    }) {
      const root = await domainByName(db, ROOT_DOMAIN);
      if (!root) throw new Error('the root domain is missing');
      const row = await start(
        systemActor({ username: input.actor, domainId: root.id, domainName: root.name, systemScope: true }),
        systemMeta(),
        { scope: 'key_rotation', description: input.description, filter: null, keyIds: input.keyIds },
        { signal: input.signal },
      );
      return { id: row.id };
    },
    async download(actor: Actor, meta: RequestMeta, id: string) {
      const row = await findVisible(db, actor, id);
      if (row.status !== 'completed') throw stateForbids('backup.notCompleted', { id, status: row.status });
      files.require(row);
      await audit.byCaller(db, actor, meta, { action: 'backup.download', target: id, details: {} });
      return new StreamedFile(
        `ksp-backup-${row.scope}-${row.created_at.slice(0, 10)}-${id.slice(-8)}.kspb`,
        'application/octet-stream',
        createReadStream(files.fileOf(id)),
      );
    },
    async upload(actor: Actor, meta: RequestMeta, file: Readable | null) {
      if (!file) throw invalid('backup.uploadMissing');
      const id = uuidv7();
      files.ensureDir();
      const temp = `${files.fileOf(id)}.part`;
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
        if (header.scope === 'system' && !actor.systemScope)
          throw forbidden('backup.systemOnly', { scope: 'system' });
        if (!['system', 'domain', 'partial', 'key_rotation'].includes(header.scope))
          throw invalid('backup.malformed', { reason: 'scope' });
        const row = uploadedRow(actor, id, header, (await stat(temp)).size, hash.digest('hex'));
        await rename(temp, files.fileOf(id));
        await recorded(actor, meta, row, {
          action: 'backup.upload',
          details: { scope: row.scope, sha256: row.sha256 },
        });
        return toRow(row);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },
    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: BackupTable[] = [];
      for (const id of ids) rows.push(await findVisible(db, actor, id));
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          await deleteBackup(trx, row.id);
          await audit.byCaller(trx, actor, meta, {
            action: 'backup.delete',
            target: row.id,
            details: { scope: row.scope },
          });
        }
      });
      for (const row of rows) await rm(files.fileOf(row.id), { force: true });
      return { deleted: rows.length };
    },
    /**
     * Restores a stopped process left under way are failed (their transaction was rolled back:
     * nothing changed). Only this node's: a restore reads an archive in this node's directory.
     * Backups left half written need nothing: they are still queued, and the backup job
     * writes them again.
     */
    async failInterrupted() {
      for (const id of await restoringIds(db)) {
        if (!files.has(id)) continue;
        await failRestoring(db, id, storedMessage('backup.restoreInterrupted'));
      }
    },
  };
}
