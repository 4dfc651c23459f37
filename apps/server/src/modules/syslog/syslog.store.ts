import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { SyslogServerTable } from '../../platform/db/schema.js';

// ---- receivers ----

export function findServer(db: Executor, id: string) {
  return db.selectFrom('syslog_server').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of the receivers by name, with their total. */
export function pageOfServers(db: Executor, page: PageQuery) {
  return pagedRows(db.selectFrom('syslog_server'), page, (q) => q.selectAll().orderBy('name'));
}

export function enabledServers(db: Executor) {
  return db.selectFrom('syslog_server').selectAll().where('enabled', '=', 1).execute();
}

/** The receivers of `ids` that exist (id and name). */
export function serversIn(db: Executor, ids: string[]) {
  return db.selectFrom('syslog_server').select(['id', 'name']).where('id', 'in', ids).execute();
}

export async function insertServer(db: Executor, row: SyslogServerTable): Promise<void> {
  await db.insertInto('syslog_server').values(row).execute();
}

export async function updateServer(
  db: Executor,
  id: string,
  changes: Partial<SyslogServerTable>,
): Promise<void> {
  await db.updateTable('syslog_server').set(changes).where('id', '=', id).execute();
}

/** Deletes receivers with their positions. */
export async function deleteServers(db: Executor, ids: string[]): Promise<void> {
  await db.deleteFrom('syslog_position').where('server_id', 'in', ids).execute();
  await db.deleteFrom('syslog_server').where('id', 'in', ids).execute();
}

/**
 * Counts `sent` messages delivered to a receiver and clears its failures; `at` (when given)
 * is its last delivery.
 */
export async function countDelivered(db: Executor, id: string, sent: number, at: string | null) {
  await db
    .updateTable('syslog_server')
    .set((eb) => ({
      sent: eb('sent', '+', sent),
      failures: 0,
      last_error: null,
      last_error_at: null,
      ...(at !== null ? { last_sent_at: at } : {}),
    }))
    .where('id', '=', id)
    .execute();
}

/** Counts one more failed delivery to a receiver, with its error. */
export async function countFailure(db: Executor, id: string, error: string, at: string): Promise<void> {
  await db
    .updateTable('syslog_server')
    .set((eb) => ({ failures: eb('failures', '+', 1), last_error: error, last_error_at: at }))
    .where('id', '=', id)
    .execute();
}

// ---- chains and positions ----

/** Each audit chain's last place (chains are domain ids, '' for records of no domain). */
export function chainHeads(db: Executor) {
  return db.selectFrom('audit_chain').select(['chain', 'seq']).execute();
}

/** A receiver's positions, chain by chain. */
export function positionsOf(db: Executor, serverId: string) {
  return db
    .selectFrom('syslog_position')
    .select(['chain', 'seq'])
    .where('server_id', '=', serverId)
    .execute();
}

/** A receiver's position in one chain, if it has one. */
export function positionOf(db: Executor, serverId: string, chain: string) {
  return db
    .selectFrom('syslog_position')
    .select('seq')
    .where('server_id', '=', serverId)
    .where('chain', '=', chain)
    .executeTakeFirst();
}

export async function insertPosition(db: Executor, serverId: string, chain: string, seq: number) {
  await db.insertInto('syslog_position').values({ server_id: serverId, chain, seq }).execute();
}

/** Moves a receiver's position in a chain; answers false when it had none there. */
export async function movePosition(db: Executor, serverId: string, chain: string, seq: number) {
  const moved = await db
    .updateTable('syslog_position')
    .set({ seq })
    .where('server_id', '=', serverId)
    .where('chain', '=', chain)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

/** Records of one chain after place `from` up to `to`, in order, at most `limit`. */
export function chainRecords(db: Executor, chain: string, from: number, to: number, limit: number) {
  let q = db
    .selectFrom('audit_log')
    .selectAll()
    .where('chain_seq', '>', from)
    .where('chain_seq', '<=', to)
    .orderBy('chain_seq')
    .limit(limit);
  q = chain === '' ? q.where('domain_id', 'is', null) : q.where('domain_id', '=', chain);
  return q.execute();
}

/** Every domain's name by id. */
export async function domainNames(db: Executor): Promise<Map<string, string>> {
  const rows = await db.selectFrom('domain').select(['id', 'name']).execute();
  return new Map(rows.map((d) => [d.id, d.name]));
}
