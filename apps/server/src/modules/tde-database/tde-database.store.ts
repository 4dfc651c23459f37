import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { TdeDbClientTable, TdeDbKeyTable } from '../../platform/db/schema.js';

/** The SQL of database clients and their grants (migration 037). */

export function findClient(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_db_client')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** The client a token's hash names, whatever its domain (the token is the only credential). */
export function findClientByTokenHash(db: Executor, tokenHash: string) {
  return db.selectFrom('tde_db_client').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function clientNameTaken(db: Executor, domainId: string, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('tde_db_client')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of the domain's clients by name, each with how many keys it is granted. */
export function listClients(db: Executor, domainId: string, filter: { name?: string }, page: PageQuery) {
  let q = db.selectFrom('tde_db_client as c').where('c.domain_id', '=', domainId);
  if (filter.name) q = q.where('c.name', 'like', `%${escapeLike(filter.name)}%`);
  return pagedRows(q, page, (p) =>
    p
      .selectAll('c')
      .select((eb) =>
        eb
          .selectFrom('tde_db_key as g')
          .select(eb.fn.countAll<string | number>().as('n'))
          .whereRef('g.client_id', '=', 'c.id')
          .as('keys'),
      )
      .orderBy('c.name')
      .orderBy('c.id'),
  );
}

export async function grantCount(db: Executor, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('tde_db_key')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertClient(db: Executor, row: TdeDbClientTable): Promise<void> {
  await db.insertInto('tde_db_client').values(row).execute();
}

export async function updateClient(
  db: Executor,
  id: string,
  changes: Partial<TdeDbClientTable>,
): Promise<void> {
  await db.updateTable('tde_db_client').set(changes).where('id', '=', id).execute();
}

export async function deleteClient(db: Executor, id: string): Promise<number> {
  // Grants first: SQLite enforces the foreign key only when told to.
  await db.deleteFrom('tde_db_key').where('client_id', '=', id).execute();
  const result = await db.deleteFrom('tde_db_client').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A client's grants by key id, with the key's name, state and current version (null: the key is gone). */
export function grantsOf(db: Executor, clientId: string) {
  return db
    .selectFrom('tde_db_key as g')
    .leftJoin('kms_key as k', (j) =>
      j.onRef('k.id', '=', 'g.key_id').onRef('k.domain_id', '=', 'g.domain_id'),
    )
    .select([
      'g.db_key_id',
      'g.key_id',
      'g.reads',
      'g.last_read_at',
      'g.last_version',
      'g.granted_at',
      'k.name as key_name',
      'k.state as key_state',
      'k.current_version',
    ])
    .where('g.client_id', '=', clientId)
    .orderBy('g.db_key_id')
    .execute();
}

export function findGrant(db: Executor, clientId: string, dbKeyId: number) {
  return db
    .selectFrom('tde_db_key')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('db_key_id', '=', dbKeyId)
    .executeTakeFirst();
}

/** Grants or re-points a key id (one statement: two grants of one id cannot race each other in). */
export async function upsertGrant(db: Executor, row: TdeDbKeyTable): Promise<void> {
  await db
    .insertInto('tde_db_key')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['client_id', 'db_key_id']).doUpdateSet({
        key_id: row.key_id,
        reads: 0,
        last_read_at: null,
        last_version: null,
        granted_at: row.granted_at,
      }),
    )
    .execute();
}

export async function deleteGrant(db: Executor, clientId: string, dbKeyId: number): Promise<number> {
  const result = await db
    .deleteFrom('tde_db_key')
    .where('client_id', '=', clientId)
    .where('db_key_id', '=', dbKeyId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The AES-256 keys of the domain in use, by name: what a client may be granted. */
export function keyOptions(db: Executor, domainId: string, name: string | undefined) {
  let q = db
    .selectFrom('kms_key')
    .select(['id', 'name', 'current_version'])
    .where('domain_id', '=', domainId)
    .where('algorithm', '=', 'AES-256')
    .where('state', '=', 'active');
  if (name) q = q.where('name', 'like', `%${escapeLike(name)}%`);
  return q.orderBy('name').orderBy('id').limit(1000).execute();
}

/** The clients of the domain granted a key, with their reads of it. */
export function readersOf(db: Executor, domainId: string, keyId: string) {
  return db
    .selectFrom('tde_db_key as g')
    .innerJoin('tde_db_client as c', 'c.id', 'g.client_id')
    .select([
      'c.id as client_id',
      'c.name as client_name',
      'g.db_key_id',
      'g.reads',
      'g.last_read_at',
      'g.last_version',
    ])
    .where('g.domain_id', '=', domainId)
    .where('g.key_id', '=', keyId)
    .orderBy('c.name')
    .orderBy('g.db_key_id')
    .execute();
}

/** What one window of reads adds to a grant: its count, last time and version. */
export interface GrantReads {
  clientId: string;
  dbKeyId: number;
  keyId: string;
  reads: number;
  lastAt: string;
  lastVersion: number;
}

/**
 * Adds a window's reads to the grants (only while the grant still names the key read) and
 * sets each client's last read. In a fixed order, so two nodes' flushes cannot deadlock.
 */
export async function addReads(
  db: Executor,
  grants: readonly GrantReads[],
  clients: ReadonlyMap<string, { at: string; ip: string }>,
): Promise<void> {
  const byKey = [...grants].sort((a, b) =>
    a.clientId === b.clientId ? a.dbKeyId - b.dbKeyId : a.clientId < b.clientId ? -1 : 1,
  );
  for (const g of byKey)
    await db
      .updateTable('tde_db_key')
      .set((eb) => ({
        reads: eb('reads', '+', g.reads),
        last_read_at: g.lastAt,
        last_version: g.lastVersion,
      }))
      .where('client_id', '=', g.clientId)
      .where('db_key_id', '=', g.dbKeyId)
      .where('key_id', '=', g.keyId)
      .execute();
  for (const [id, last] of [...clients].sort(([a], [b]) => (a < b ? -1 : 1)))
    await db
      .updateTable('tde_db_client')
      .set({ last_read_at: last.at, last_read_ip: last.ip })
      .where('id', '=', id)
      .execute();
}
