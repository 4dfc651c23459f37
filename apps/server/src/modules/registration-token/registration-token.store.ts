import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { RegistrationTokenTable } from '../../platform/db/schema.js';

export async function findToken(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('registration_token')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

export async function findTokenBySecretHash(db: Executor, secretHash: string) {
  return db
    .selectFrom('registration_token')
    .selectAll()
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
}

/** Whether another token of the domain (not `except`) has the name. */
export async function tokenNameTaken(db: Executor, domainId: string, name: string, except?: string) {
  let q = db
    .selectFrom('registration_token')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name);
  if (except) q = q.where('id', '!=', except);
  return (await q.executeTakeFirst()) !== undefined;
}

/** A page of the domain's tokens, newest first, with the total the filters match. */
export async function listTokens(
  db: Executor,
  domainId: string,
  filter: { name?: string; usage?: string },
  page: PageQuery,
) {
  let q = db.selectFrom('registration_token').where('domain_id', '=', domainId);
  if (filter.name) q = q.where('name', 'like', `%${escapeLike(filter.name)}%`);
  if (filter.usage) q = q.where('usage', '=', filter.usage);
  return pagedRows(q, page, (p) => p.selectAll().orderBy('created_at', 'desc').orderBy('name'));
}

export async function insertToken(db: Executor, row: RegistrationTokenTable): Promise<void> {
  await db.insertInto('registration_token').values(row).execute();
}

export async function updateToken(
  db: Executor,
  id: string,
  changes: Partial<RegistrationTokenTable>,
): Promise<void> {
  await db.updateTable('registration_token').set(changes).where('id', '=', id).execute();
}

export async function deleteTokens(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('registration_token').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Counts one use of a token unless it is exhausted; false when it was (the condition makes
 * concurrent uses unable to pass the capacity).
 */
export async function spendTokenUse(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .updateTable('registration_token')
    .set((eb) => ({ used: eb('used', '+', 1) }))
    .where('id', '=', id)
    .where((eb) => eb.or([eb('capacity', '=', 0), eb('used', '<', eb.ref('capacity'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function tokenUses(db: Executor, id: string): Promise<number> {
  const row = await db
    .selectFrom('registration_token')
    .select('used')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.used;
}
