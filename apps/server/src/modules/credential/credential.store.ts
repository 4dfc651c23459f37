import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { CredentialTable, CredentialVersionTable } from '../../platform/db/schema.js';

export async function findCredential(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('credential')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

export async function findCredentialByName(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('credential')
    .selectAll()
    .where('name', '=', name)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A credential's metadata without its dates and links (for other modules). */
export async function credentialSummary(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('credential')
    .select(['id', 'name', 'type', 'current_version'])
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A page of the domain's credentials, by name; `tag` matches one element of the JSON array. */
export async function listCredentials(
  db: Executor,
  domainId: string,
  filter: { name?: string | undefined; type?: string | undefined; tag?: string | undefined },
  page: PageQuery,
) {
  let q = db.selectFrom('credential').where('domain_id', '=', domainId);
  if (filter.name) q = q.where('name', 'like', `%${escapeLike(filter.name)}%`);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.tag) q = q.where('tags', 'like', `%${escapeLike(JSON.stringify(filter.tag))}%`);
  return pagedRows(q, page, (p) => p.selectAll().orderBy('name'));
}

/** The versions of a credential, newest first, without their values. */
export async function listVersions(db: Executor, credentialId: string) {
  return db
    .selectFrom('credential_version')
    .select(['version', 'created_by', 'created_at'])
    .where('credential_id', '=', credentialId)
    .orderBy('version', 'desc')
    .execute();
}

export async function findSealedValue(db: Executor, credentialId: string, version: number) {
  return db
    .selectFrom('credential_version')
    .select('value_sealed')
    .where('credential_id', '=', credentialId)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function insertCredential(db: Executor, row: CredentialTable): Promise<void> {
  await db.insertInto('credential').values(row).execute();
}

export async function insertVersion(db: Executor, row: CredentialVersionTable): Promise<void> {
  await db.insertInto('credential_version').values(row).execute();
}

export async function updateCredential(
  db: Executor,
  id: string,
  changes: Partial<CredentialTable>,
): Promise<void> {
  await db.updateTable('credential').set(changes).where('id', '=', id).execute();
}

/**
 * Makes `next` the current version if `from` still is; false when another change came first
 * (the condition makes two claims of one number unable to both succeed).
 */
export async function claimVersion(
  db: Executor,
  id: string,
  from: number,
  next: number,
  at: string,
): Promise<boolean> {
  const claimed = await db
    .updateTable('credential')
    .set({ current_version: next, updated_at: at })
    .where('id', '=', id)
    .where('current_version', '=', from)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

export async function linkServer(
  db: Executor,
  domainId: string,
  id: string,
  serverId: string | null,
): Promise<void> {
  await db
    .updateTable('credential')
    .set({ server_id: serverId })
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .execute();
}

/** Deletes the credentials and their versions; the number of credentials deleted. */
export async function deleteCredentials(db: Executor, ids: string[]): Promise<number> {
  await db.deleteFrom('credential_version').where('credential_id', 'in', ids).execute();
  const result = await db.deleteFrom('credential').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
