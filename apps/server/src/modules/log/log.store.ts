import { sql, type SelectQueryBuilder } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
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
    q = f.action.endsWith('.')
      ? q.where(sql<boolean>`action like ${`${escapeLike(f.action)}%`} escape '\\'`)
      : q.where('action', '=', f.action);
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
export async function listRecords(db: Executor, f: LogFilter, offset: number, limit: number) {
  const base = filtered(db, f);
  const ids = base.select('id').orderBy('at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit);
  const [rows, total] = await Promise.all([
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export function findRecord(db: Executor, id: string, domainId: string | null) {
  let q = db.selectFrom('audit_log').selectAll().where('id', '=', id);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.executeTakeFirst();
}

/**
 * The records the filters select, newest first, `chunk` rows at a time by keyset (at, id):
 * memory stays at one chunk whatever the total.
 */
export async function* streamRecords(
  db: Executor,
  f: LogFilter,
  max: number,
  chunk = 1000,
): AsyncGenerator<AuditTable> {
  let after: { at: string; id: string } | null = null;
  let sent = 0;
  while (sent < max) {
    let q = filtered(db, f).selectAll();
    if (after) {
      const { at, id } = after;
      q = q.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]));
    }
    const rows = await q
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    for (const row of rows) yield row;
    sent += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < chunk) return;
    after = { at: last.at, id: last.id };
  }
}
