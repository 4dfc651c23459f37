import { sql, type SelectQueryBuilder } from 'kysely';
import { LOG_COUNT_MAX } from '@ksp/contracts';
import { escapeLike, type Engine, type Executor } from '../../platform/db/database.js';
import { csvLineSql, inlineParameters, jsonLineSql } from '../../platform/db/copy-out.js';
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

/** A place in the newest-first order: a record's receipt time and sequence number. */
export interface Position {
  at: string;
  seq: number;
}

/** One page, newest first by receipt; the total counted up to the cap. */
export async function listRecords(
  db: Executor,
  f: ClientLogFilter,
  offset: number,
  limit: number,
  after?: Position | null,
) {
  const base = filtered(db, f);
  // After a position: one index range whatever the depth (a row-value comparison, as the
  // server records' reader); by number: skip index entries.
  const seqs = (
    after ? base.where(sql<boolean>`(received_at, seq) < (${after.at}, ${after.seq})`) : base.offset(offset)
  )
    .select('seq')
    .orderBy('received_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit);
  const [rows, total] = await Promise.all([
    db
      .selectFrom('client_log')
      .selectAll()
      .where('seq', 'in', seqs)
      .orderBy('received_at', 'desc')
      .orderBy('seq', 'desc')
      .execute(),
    db
      .selectFrom(
        base
          .select('seq')
          .limit(LOG_COUNT_MAX + 1)
          .as('matched'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const counted = Number(total.n);
  return { rows, total: Math.min(counted, LOG_COUNT_MAX), exact: counted <= LOG_COUNT_MAX };
}

/** How many records match, counting no further than `limit`. */
export async function countRecords(db: Executor, f: ClientLogFilter, limit: number): Promise<number> {
  const total = await db
    .selectFrom(filtered(db, f).select('seq').limit(Math.max(0, limit)).as('matched'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

export function findRecord(db: Executor, id: string, domainId: string | null) {
  let q = db.selectFrom('client_log').selectAll().where('id', '=', id);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.executeTakeFirst();
}

/** The filtered records newest first, `chunk` rows at a time by keyset (received_at, seq). */
export async function* streamRecords(
  db: Executor,
  f: ClientLogFilter,
  max: number,
  chunk = 250,
): AsyncGenerator<ClientLogRow[]> {
  let after: { at: string; seq: number } | null = null;
  let sent = 0;
  while (sent < max) {
    let q = filtered(db, f).selectAll();
    // A row-value range: one index range on both engines (see the server records' reader).
    if (after) q = q.where(sql<boolean>`(received_at, seq) < (${after.at}, ${after.seq})`);
    const rows = await q
      .orderBy('received_at', 'desc')
      .orderBy('seq', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    if (rows.length > 0) yield rows;
    sent += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < chunk) return;
    after = { at: last.received_at, seq: Number(last.seq) };
  }
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
  const line =
    format === 'csv'
      ? csvLineSql(csvColumns.map((c) => VIEW_SQL[c]))
      : jsonLineSql(
          Object.entries(VIEW_SQL).map(([name, expr]) =>
            name === 'details' ? { name, json: expr } : { name, expr },
          ),
        );
  const q = filtered(db, f)
    .select(sql<string>`${sql.raw(line)}`.as('line'))
    .orderBy('received_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(max);
  return inlineParameters(q.compile());
}

/** Every domain's id (the export names each record's domain). */
export async function domainIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('domain').select('id').execute()).map((d) => d.id);
}
