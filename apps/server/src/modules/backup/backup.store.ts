import type { BackupKeyScope, BackupScope } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { BackupKeyTable, BackupTable, DomainTable } from '../../platform/db/schema.js';

// ---- backups ----

export function findBackup(db: Executor, id: string) {
  return db.selectFrom('backup').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A page of the backups a caller sees, newest first, with their total: every one from the
 * root domain (`all`), else the domain's own and never a system backup.
 */
export function pageOfBackups(
  db: Executor,
  seen: { all: boolean; domainId: string },
  q: PageQuery & { scope?: BackupScope | undefined },
) {
  let base = db.selectFrom('backup');
  if (!seen.all) base = base.where('domain_id', '=', seen.domainId).where('scope', '!=', 'system');
  if (q.scope) base = base.where('scope', '=', q.scope);
  return pagedRows(base, q, (b) => b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'));
}

export async function insertBackup(db: Executor, row: BackupTable): Promise<void> {
  await db.insertInto('backup').values(row).execute();
}

export async function updateBackup(
  db: Executor,
  id: string,
  changes: Partial<Omit<BackupTable, 'id'>>,
): Promise<void> {
  await db.updateTable('backup').set(changes).where('id', '=', id).execute();
}

export async function deleteBackup(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('backup').where('id', '=', id).execute();
}

/** The oldest backup still queued (or left half written). */
export function oldestQueued(db: Executor) {
  return db
    .selectFrom('backup')
    .selectAll()
    .where('status', '=', 'backing_up')
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

/** Ids of the backups whose restore is marked under way. */
export async function restoringIds(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('backup')
    .select(['id'])
    .where('restore_status', '=', 'restoring')
    .execute();
  return rows.map((r) => r.id);
}

/** Marks a restore failed, only while it is still marked under way. */
export async function failRestoring(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('backup')
    .set({ restore_status: 'failed', error })
    .where('id', '=', id)
    .where('restore_status', '=', 'restoring')
    .execute();
}

/** Ids of the completed backups made under a backup key. */
export async function completedWithKey(db: Executor, keyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('backup')
    .select(['id'])
    .where('backup_key_id', '=', keyId)
    .where('status', '=', 'completed')
    .execute();
  return rows.map((r) => r.id);
}

// ---- domains ----

export function domainById(db: Executor, id: string) {
  return db.selectFrom('domain').selectAll().where('id', '=', id).executeTakeFirst();
}

export function domainByName(db: Executor, name: string) {
  return db.selectFrom('domain').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function insertDomain(db: Executor, row: DomainTable): Promise<void> {
  await db.insertInto('domain').values(row).execute();
}

// ---- backup keys ----

export function findBackupKey(db: Executor, id: string) {
  return db.selectFrom('backup_key').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The keys of one scope: every system key, or one domain's domain keys. */
const keysOfScope = (db: Executor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) =>
  r.scope === 'system'
    ? db.selectFrom('backup_key').where('scope', '=', 'system')
    : db.selectFrom('backup_key').where('scope', '=', 'domain').where('domain_id', '=', r.domain_id);

/** Whether a scope (a domain's, for domain keys) has any key. */
export async function scopeHasKey(db: Executor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) {
  return (await keysOfScope(db, r).select('id').executeTakeFirst()) !== undefined;
}

/** The default key of a scope (a domain's, for domain keys). */
export function defaultKeyOf(db: Executor, scope: BackupKeyScope, domainId: string) {
  return keysOfScope(db, { scope, domain_id: domainId })
    .selectAll()
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

/** Makes no key of the scope (a domain's, for domain keys) the default. */
export async function clearDefaultKey(db: Executor, r: Pick<BackupKeyTable, 'scope' | 'domain_id'>) {
  let q = db.updateTable('backup_key').set({ is_default: 0 }).where('scope', '=', r.scope);
  if (r.scope === 'domain') q = q.where('domain_id', '=', r.domain_id);
  await q.execute();
}

export async function setDefaultKey(db: Executor, id: string): Promise<void> {
  await db.updateTable('backup_key').set({ is_default: 1 }).where('id', '=', id).execute();
}

export async function insertBackupKey(db: Executor, row: BackupKeyTable): Promise<void> {
  await db.insertInto('backup_key').values(row).execute();
}

export async function deleteBackupKey(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('backup_key').where('id', '=', id).execute();
}

/**
 * A page of the backup keys a caller sees, newest first, with their total, each with
 * `live_domain` (null when its domain is gone). From the root domain (`all`): system keys,
 * the domain's own and keys of domains that are gone; else the domain's own domain keys.
 */
export function pageOfBackupKeys(db: Executor, seen: { all: boolean; domainId: string }, page: PageQuery) {
  const base = db
    .selectFrom('backup_key')
    .leftJoin('domain', 'domain.id', 'backup_key.domain_id')
    .where((eb) =>
      seen.all
        ? eb.or([
            eb('backup_key.scope', '=', 'system'),
            eb('backup_key.domain_id', '=', seen.domainId),
            // Keys of domains that are gone: only the root domain can still reach them.
            eb.and([eb('backup_key.scope', '=', 'domain'), eb('domain.id', 'is', null)]),
          ])
        : eb.and([eb('backup_key.scope', '=', 'domain'), eb('backup_key.domain_id', '=', seen.domainId)]),
    );
  return pagedRows(base, page, (q) =>
    q
      .selectAll('backup_key')
      .select('domain.id as live_domain')
      .orderBy('backup_key.created_at', 'desc')
      .orderBy('backup_key.id'),
  );
}
