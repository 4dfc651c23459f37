import { sql, type SelectQueryBuilder } from 'kysely';
import { LOG_COUNT_MAX } from '@ksp/contracts';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { csvLineSql, inlineParameters, jsonLineSql } from '../../platform/db/copy-out.js';
import type { AuditTable, Database } from '../../platform/db/schema.js';

export interface LogFilter {
  /** Only this domain's records; null: every record (root domain sessions). */
  domainId: string | null;
  from?: string | undefined;
  to?: string | undefined;
  severity?: string | undefined;
  action?: string | undefined;
  result?: 'success' | 'failure' | undefined;
  username?: string | undefined;
  ip?: string | undefined;
  source?: string | undefined;
  q?: string | undefined;
}

type AuditQuery = SelectQueryBuilder<Database, 'audit_log', object>;

/** The filters as WHERE clauses; an action ending with "." is an area prefix. */
function filtered(db: Executor, f: LogFilter): AuditQuery {
  let q: AuditQuery = db.selectFrom('audit_log');
  if (f.domainId !== null) q = q.where('domain_id', '=', f.domainId);
  if (f.from) q = q.where('at', '>=', new Date(f.from).toISOString());
  if (f.to) q = q.where('at', '<', new Date(f.to).toISOString());
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.action) {
    const prefix = f.action.endsWith('.') ? f.action.slice(0, -1) : null;
    if (prefix === null) q = q.where('action', '=', f.action);
    // "key." is an area, indexed as such; a deeper prefix ("cert.ca.") is matched as text.
    else if (!prefix.includes('.')) q = q.where('area', '=', prefix);
    else q = q.where(sql<boolean>`action like ${`${escapeLike(f.action)}%`} escape '\\'`);
  }
  if (f.result) q = q.where('result', '=', f.result);
  if (f.username) q = q.where('username', '=', f.username);
  if (f.ip) q = q.where('source_ip', '=', f.ip);
  if (f.source) q = q.where('source', '=', f.source);
  if (f.q) {
    const text = `%${escapeLike(f.q)}%`;
    q = q.where(sql<boolean>`(target like ${text} escape '\\' or details like ${text} escape '\\')`);
  }
  return q;
}

/**
 * One page, newest first. The page's ids come first, from the index alone where the filters
 * allow (a deep page skips index entries, not rows), then its rows by id.
 */
export async function listRecords(
  db: Executor,
  f: LogFilter,
  offset: number,
  limit: number,
  after?: Position | null,
) {
  const base = filtered(db, f);
  // After a position: an index seek to it, whatever the depth; by number: skip index entries.
  const ids = (after ? before(base, after) : base.offset(offset))
    .select('id')
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  const [rows, total] = await Promise.all([
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
    // Counted up to the cap plus one: a million matching records cost no more than the cap.
    db
      .selectFrom(
        base
          .select('id')
          .limit(LOG_COUNT_MAX + 1)
          .as('matched'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const counted = Number(total.n);
  return { rows, total: Math.min(counted, LOG_COUNT_MAX), exact: counted <= LOG_COUNT_MAX };
}

/** A place in the newest-first order: a record's time and id. */
export interface Position {
  at: string;
  id: string;
}

/**
 * The records after `p` in the newest-first order. A row-value comparison, which both engines
 * serve as one range of the `(…, at, id)` indexes; the same condition spelt with OR is a filter
 * that PostgreSQL applies while walking the index from the newest record, every time.
 */
function before(q: AuditQuery, p: Position): AuditQuery {
  return q.where(sql<boolean>`(at, id) < (${p.at}, ${p.id})`);
}

export function findRecord(db: Executor, id: string, domainId: string | null) {
  let q = db.selectFrom('audit_log').selectAll().where('id', '=', id);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.executeTakeFirst();
}

/**
 * A record's view (`LogRecord`) by member, in its order, and the column each comes from. The
 * details are JSON text as the audit writer stored it (`JSON.stringify` of an object), so the
 * view writes them as they are.
 */
const VIEW_COLUMNS = {
  id: 'id',
  at: 'at',
  severity: 'severity',
  action: 'action',
  target: 'target',
  result: 'result',
  username: 'username',
  domain_name: 'domain_name',
  source: 'source',
  ip: 'source_ip',
  count: 'count',
  object_id: 'object_id',
  details: 'details',
} as const satisfies Record<string, keyof AuditTable>;
export type ViewMember = keyof typeof VIEW_COLUMNS;

/** The columns a record's view shows: what an export reads (not the chain's place and MAC). */
const EXPORTED = Object.values(VIEW_COLUMNS);
export type ExportedRecord = Pick<AuditTable, (typeof VIEW_COLUMNS)[ViewMember]>;

/**
 * The records the filters select, newest first, `chunk` rows at a time by keyset (at, id):
 * memory stays at one chunk whatever the total. Yields each chunk whole, so that a writer can
 * hand the stream one piece per chunk rather than one per record.
 */
export async function* streamRecords(
  db: Executor,
  f: LogFilter,
  max: number,
  chunk = 250,
): AsyncGenerator<ExportedRecord[]> {
  let after: Position | null = null;
  let sent = 0;
  while (sent < max) {
    const q: AuditQuery = after ? before(filtered(db, f), after) : filtered(db, f);
    const rows = await q
      .select(EXPORTED)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    if (rows.length > 0) yield rows;
    sent += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < chunk) return;
    after = { at: last.at, id: last.id };
  }
}

/**
 * PostgreSQL: the query of an export by COPY, whose one column is each record's CSV line (the
 * given columns) or JSON object, newest first, parameters inlined (db/copy-out.ts).
 */
export function exportSelect(
  db: Executor,
  f: LogFilter,
  max: number,
  format: 'csv' | 'json',
  csvColumns: readonly ViewMember[],
): string {
  const line =
    format === 'csv'
      ? csvLineSql(csvColumns.map((c) => VIEW_COLUMNS[c]))
      : jsonLineSql(
          Object.entries(VIEW_COLUMNS).map(([name, column]) =>
            name === 'details' ? { name, json: column } : { name, expr: column },
          ),
        );
  const q = filtered(db, f)
    .select(sql<string>`${sql.raw(line)}`.as('line'))
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(max);
  return inlineParameters(q.compile());
}
