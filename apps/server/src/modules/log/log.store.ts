import { sql, type SelectQueryBuilder } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { inlineParameters, viewLineSql } from '../../platform/db/copy-out.js';
import {
  after,
  chunksNewestFirst,
  newestFirst,
  pageNewestFirst,
  type NewestFirst,
  type Position as NewestPosition,
} from '../../platform/db/newest-first.js';
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

const LOG: NewestFirst<'audit_log'> = { time: 'at', key: 'id' };

/** A place in the newest-first order: a record's time and id. */
export type Position = NewestPosition<string>;

/** One page, newest first (`pageNewestFirst`). */
export function listRecords(
  db: Executor,
  f: LogFilter,
  offset: number,
  limit: number,
  from?: Position | null,
) {
  return pageNewestFirst(db, LOG, filtered(db, f), db.selectFrom('audit_log').selectAll(), {
    offset,
    limit,
    from: from ?? null,
  });
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

/** The records the filters select, newest first, `chunk` rows at a time (`chunksNewestFirst`). */
export function streamRecords(
  db: Executor,
  f: LogFilter,
  max: number,
  chunk = 250,
): AsyncGenerator<ExportedRecord[]> {
  return chunksNewestFirst(
    max,
    chunk,
    (from, limit) =>
      newestFirst(from ? after(filtered(db, f), LOG, from) : filtered(db, f), LOG)
        .select(EXPORTED)
        .limit(limit)
        .execute(),
    (row) => ({ at: row.at, key: row.id }),
  );
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
  const q = newestFirst(filtered(db, f), LOG)
    .select(sql<string>`${sql.raw(viewLineSql(format, VIEW_COLUMNS, csvColumns))}`.as('line'))
    .limit(max);
  return inlineParameters(q.compile());
}
