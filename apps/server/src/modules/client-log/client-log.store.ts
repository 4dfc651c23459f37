import { sql, type SelectQueryBuilder } from 'kysely';
import { escapeLike, type Engine, type Executor } from '../../platform/db/database.js';
import { inlineParameters, viewLineSql } from '../../platform/db/copy-out.js';
import {
  after,
  chunksNewestFirst,
  countUpTo,
  newestFirst,
  pageNewestFirst,
  type NewestFirst,
  type Position as NewestPosition,
} from '../../platform/db/newest-first.js';
import type { ClientLogTable, Database } from '../../platform/db/schema.js';

export interface ClientLogFilter {
  /** Only this domain's records; null: every record (root domain sessions, alarms over all). */
  domainId: string | null;
  from?: string | undefined;
  to?: string | undefined;
  level?: string | undefined;
  effect?: string | undefined;
  action?: string | undefined;
  client?: string | undefined;
  os_user?: string | undefined;
  ip?: string | undefined;
  q?: string | undefined;
}

export type ClientLogRow = Omit<ClientLogTable, 'seq'> & { seq: number | string };
type Query = SelectQueryBuilder<Database, 'client_log', object>;

/** The filters as WHERE clauses; an action ending with "." is a prefix. */
function filtered(db: Executor, f: ClientLogFilter): Query {
  let q: Query = db.selectFrom('client_log');
  if (f.domainId !== null) q = q.where('domain_id', '=', f.domainId);
  if (f.from) q = q.where('received_at', '>=', new Date(f.from).toISOString());
  if (f.to) q = q.where('received_at', '<', new Date(f.to).toISOString());
  if (f.level) q = q.where('level', '=', f.level);
  if (f.effect) q = q.where('effect', '=', f.effect);
  if (f.action) {
    if (f.action.endsWith('.'))
      q = q.where(sql<boolean>`action like ${`${escapeLike(f.action)}%`} escape '\\'`);
    else q = q.where('action', '=', f.action);
  }
  if (f.client) {
    const client = f.client;
    q = q.where((eb) =>
      eb.or([
        eb('client_name', '=', client),
        eb('client_cn', '=', client),
        eb('client_id', '=', client.toUpperCase().replace(/:/g, '')),
      ]),
    );
  }
  if (f.os_user) q = q.where('os_user', '=', f.os_user);
  if (f.ip) q = q.where('client_ip', '=', f.ip);
  if (f.q) {
    const text = `%${escapeLike(f.q)}%`;
    q = q.where(
      sql<boolean>`(resource like ${text} escape '\\' or process like ${text} escape '\\'
        or guard_point like ${text} escape '\\' or policy like ${text} escape '\\'
        or details like ${text} escape '\\')`,
    );
  }
  return q;
}

/**
 * Appends records. On PostgreSQL the table is locked against other writers for the
 * transaction, so sequence numbers become visible in order: a reader (the syslog forwarder)
 * that has seen seq N never later finds a smaller one committed. SQLite writes one at a time.
 */
export async function insertRecords(
  trx: Executor,
  engine: Engine,
  rows: Omit<ClientLogTable, 'seq'>[],
): Promise<void> {
  if (engine === 'postgres') await sql`lock table client_log in share row exclusive mode`.execute(trx);
  // A few hundred rows per statement keep within both engines' parameter limits.
  for (let i = 0; i < rows.length; i += 200)
    await trx
      .insertInto('client_log')
      .values(rows.slice(i, i + 200))
      .execute();
}

/** Remembers an upload token's id; false when it is known already (a replay). */
export async function rememberJti(
  trx: Executor,
  clientKey: string,
  jti: string,
  expiresAt: string,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('client_log_jti')
    .values({ client_key: clientKey, jti, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['client_key', 'jti']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function forgetExpiredJtis(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('client_log_jti').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

const LOG: NewestFirst<'client_log'> = { time: 'received_at', key: 'seq' };

/** A place in the newest-first order: a record's receipt time and sequence number. */
export type Position = NewestPosition<number>;

/** One page, newest first by receipt (`pageNewestFirst`). */
export function listRecords(
  db: Executor,
  f: ClientLogFilter,
  offset: number,
  limit: number,
  from?: Position | null,
) {
  return pageNewestFirst(db, LOG, filtered(db, f), db.selectFrom('client_log').selectAll(), {
    offset,
    limit,
    from: from ?? null,
  });
}

/** How many records match, counting no further than `limit`. */
export function countRecords(db: Executor, f: ClientLogFilter, limit: number): Promise<number> {
  return countUpTo(db, LOG, filtered(db, f), limit);
}

export function findRecord(db: Executor, id: string, domainId: string | null) {
  let q = db.selectFrom('client_log').selectAll().where('id', '=', id);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.executeTakeFirst();
}

/** The filtered records newest first by receipt, `chunk` rows at a time (`chunksNewestFirst`). */
export function streamRecords(
  db: Executor,
  f: ClientLogFilter,
  max: number,
  chunk = 250,
): AsyncGenerator<ClientLogRow[]> {
  return chunksNewestFirst(
    max,
    chunk,
    (from, limit) =>
      newestFirst(from ? after(filtered(db, f), LOG, from) : filtered(db, f), LOG)
        .selectAll()
        .limit(limit)
        .execute(),
    (row) => ({ at: row.received_at, key: Number(row.seq) }),
  );
}

/** Records received after `seq` (the syslog forwarder's position), in order. */
export function recordsAfter(db: Executor, seq: number, limit: number) {
  return db.selectFrom('client_log').selectAll().where('seq', '>', seq).orderBy('seq').limit(limit).execute();
}

/** The last sequence number given (0 when there is no record). */
export async function lastSeq(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('client_log')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** Retention: removes the records received before `before`. */
export async function deleteBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('client_log').where('received_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A client record's view (`ClientLogRecord`) by member, in its order, and the SQL each comes
 * from: the domain's name is looked up by its key, the details are JSON text as stored (this
 * module writes `JSON.stringify` of an object).
 */
const VIEW_SQL = {
  id: 'id',
  seq: 'seq',
  level: 'level',
  at: 'agent_at',
  received_at: 'received_at',
  action: 'action',
  effect: 'effect',
  policy: 'policy',
  guard_point: 'guard_point',
  os_user: 'os_user',
  process: 'process',
  resource: 'resource',
  client_id: 'client_id',
  client_cn: 'client_cn',
  client_name: 'client_name',
  client_os: 'client_os',
  ip: 'client_ip',
  domain_name: "coalesce((select d.name from domain d where d.id = client_log.domain_id), '')",
  details: 'details',
} as const;
export type ClientViewMember = keyof typeof VIEW_SQL;

/**
 * PostgreSQL: the query of an export by COPY, whose one column is each record's CSV line (the
 * given columns) or JSON object, newest first, parameters inlined (db/copy-out.ts).
 */
export function exportSelect(
  db: Executor,
  f: ClientLogFilter,
  max: number,
  format: 'csv' | 'json',
  csvColumns: readonly ClientViewMember[],
): string {
  const q = newestFirst(filtered(db, f), LOG)
    .select(sql<string>`${sql.raw(viewLineSql(format, VIEW_SQL, csvColumns))}`.as('line'))
    .limit(max);
  return inlineParameters(q.compile());
}

/** Every domain's id (the export names each record's domain). */
export async function domainIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('domain').select('id').execute()).map((d) => d.id);
}
