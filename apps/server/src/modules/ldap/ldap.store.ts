import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { LdapConnectionTable } from '../../platform/db/schema.js';

export async function findConnection(db: Executor, id: string) {
  return db.selectFrom('ldap_connection').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findConnectionByName(db: Executor, name: string) {
  return db.selectFrom('ldap_connection').selectAll().where('name', '=', name).executeTakeFirst();
}

/** A page of the connections, by name, with the total the filter matches. */
export async function listConnections(db: Executor, filter: { name?: string | undefined }, page: PageQuery) {
  let q = db.selectFrom('ldap_connection');
  if (filter.name) q = q.where('name', 'like', `%${escapeLike(filter.name)}%`);
  return pagedRows(q, page, (p) => p.selectAll().orderBy('name'));
}

export async function insertConnection(db: Executor, row: LdapConnectionTable): Promise<void> {
  await db.insertInto('ldap_connection').values(row).execute();
}

export async function updateConnection(
  db: Executor,
  id: string,
  changes: Partial<LdapConnectionTable>,
): Promise<void> {
  await db.updateTable('ldap_connection').set(changes).where('id', '=', id).execute();
}

export async function deleteConnections(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('ldap_connection').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
