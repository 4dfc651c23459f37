import { sql } from 'kysely';
import type { Engine, Executor } from '../../platform/db/database.js';
import type { ClusterNodeTable, OpCounterTable } from '../../platform/db/schema.js';

/** A node's report: its row, made or brought up to date. */
export async function upsertClusterNode(db: Executor, row: ClusterNodeTable): Promise<void> {
  await db
    .insertInto('cluster_node')
    .values(row)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        version: row.version,
        started_at: row.started_at,
        last_seen: row.last_seen,
      }),
    )
    .execute();
}

/** The database server a connection reached: host:port of PostgreSQL's primary, or "sqlite". */
export async function serverAddress(db: Executor, engine: Engine): Promise<string> {
  if (engine !== 'postgres') return 'sqlite';
  const { rows } = await sql<{ address: string | null }>`
    SELECT coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port()::text, '') AS address
  `.execute(db);
  return rows[0]?.address ?? '';
}

/** Every node that has reported, by name. */
export async function clusterNodes(db: Executor): Promise<ClusterNodeTable[]> {
  return db.selectFrom('cluster_node').selectAll().orderBy('name').execute();
}

/** The last completed backup made on this installation, of one domain or of any (null). */
export async function lastLocalBackup(db: Executor, domainId: string | null) {
  let q = db
    .selectFrom('backup')
    .select(['id', 'scope', 'finished_at'])
    .where('status', '=', 'completed')
    .where('uploaded', '=', 0)
    .where('finished_at', 'is not', null);
  if (domainId) q = q.where('domain_id', '=', domainId);
  return q.orderBy('finished_at', 'desc').limit(1).executeTakeFirst();
}

/** Adds counted buckets to `op_counter` (a bucket already there is summed into). */
export async function addOpCounts(db: Executor, rows: OpCounterTable[]): Promise<void> {
  await db
    .insertInto('op_counter')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['minute', 'domain_id', 'class', 'node'])
        .doUpdateSet((eb) => ({ count: eb('op_counter.count', '+', eb.ref('excluded.count')) })),
    )
    .execute();
}

/**
 * Counts per class and bucket of `bucketMinutes` (the bucket's first minute), from `fromMinute`
 * on, of one domain or all (null), summed over every node.
 */
export async function opCountsSince(
  db: Executor,
  domainId: string | null,
  fromMinute: number,
  bucketMinutes: number,
) {
  const width = sql.lit(bucketMinutes);
  let q = db
    .selectFrom('op_counter')
    .select((eb) => [
      sql<number | string>`(minute / ${width}) * ${width}`.as('bucket'),
      'class',
      eb.fn.sum<number | string>('count').as('n'),
    ])
    .where('minute', '>=', fromMinute);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.groupBy([sql`(minute / ${width}) * ${width}`, 'class']).execute();
}

/** Drops the buckets before `minute`; the rows dropped. */
export async function dropOpCountsBefore(db: Executor, minute: number): Promise<number> {
  const done = await db.deleteFrom('op_counter').where('minute', '<', minute).executeTakeFirst();
  return Number(done.numDeletedRows);
}
