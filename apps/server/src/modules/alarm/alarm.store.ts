import { sql } from 'kysely';
import { logSeverities } from '@ksp/contracts';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery, type RowWindow } from '../../platform/db/paged.js';
import type { AlarmRuleTable, AlarmTable } from '../../platform/db/schema.js';

/** The severities at or above `min` ("WARNING" → WARNING, ERROR, CRITICAL). */
export function severitiesFrom(min: string): string[] {
  const at = (logSeverities as readonly string[]).indexOf(min);
  return at < 0 ? [] : logSeverities.slice(at);
}

/**
 * How many server records (audit_log) match a server rule since `since`, counted up to `limit`
 * and no further: the query stops at the threshold, whatever the number of records. An
 * action ending with "." is an area ("key.") or a deeper prefix ("cert.ca."), as the log list
 * reads it. A rule that does not name the alarm area never counts the alarms themselves.
 */
export async function countServerRecords(
  db: Executor,
  rule: Pick<AlarmRuleTable, 'domain_id' | 'all_domains' | 'action' | 'result' | 'min_severity'>,
  since: { at: string; inclusive: boolean },
  limit: number,
): Promise<number> {
  let q = db
    .selectFrom('audit_log')
    .select('id')
    .where('at', since.inclusive ? '>=' : '>', since.at);
  if (rule.all_domains !== 1) q = q.where('domain_id', '=', rule.domain_id);
  const action = rule.action;
  if (action) {
    const prefix = action.endsWith('.') ? action.slice(0, -1) : null;
    if (prefix === null) q = q.where('action', '=', action);
    else if (!prefix.includes('.')) q = q.where('area', '=', prefix);
    else q = q.where(sql<boolean>`action like ${`${escapeLike(action)}%`} escape '\\'`);
  }
  if (!action || action.split('.')[0] !== 'alarm') q = q.where('area', '!=', 'alarm');
  if (rule.result) q = q.where('result', '=', rule.result as 'success' | 'failure');
  if (rule.min_severity) q = q.where('severity', 'in', severitiesFrom(rule.min_severity));
  const row = await db
    .selectFrom(q.limit(limit).as('matched'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findRule(db: Executor, id: string, domainId: string | null) {
  let q = db.selectFrom('alarm_rule').selectAll().where('id', '=', id);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.executeTakeFirst();
}

export async function listRules(db: Executor, domainId: string | null, page: PageQuery | RowWindow) {
  let base = db.selectFrom('alarm_rule');
  if (domainId !== null) base = base.where('domain_id', '=', domainId);
  return pagedRows(base, page, (q) => q.selectAll().orderBy('name').orderBy('id'));
}

export async function insertRule(db: Executor, row: AlarmRuleTable): Promise<void> {
  await db.insertInto('alarm_rule').values(row).execute();
}

export async function updateRule(
  db: Executor,
  id: string,
  changes: Omit<AlarmRuleTable, 'id' | 'domain_id' | 'all_domains' | 'created_at'>,
): Promise<void> {
  await db.updateTable('alarm_rule').set(changes).where('id', '=', id).execute();
}

/** The rules of `ids` (of one domain, or any: null). */
export function rulesIn(db: Executor, ids: string[], domainId: string | null) {
  let q = db.selectFrom('alarm_rule').select(['id', 'name']).where('id', 'in', ids);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.execute();
}

export async function deleteRules(db: Executor, ids: string[]): Promise<void> {
  await db.deleteFrom('alarm_rule').where('id', 'in', ids).execute();
}

export const enabledRules = (db: Executor) =>
  db.selectFrom('alarm_rule').selectAll().where('enabled', '=', 1).orderBy('id').execute();

/**
 * Marks a rule as raised now, unless another node (or round) did since it was read: the
 * compare-and-set makes one alarm per rule and window whatever the number of nodes.
 */
export async function claimRaise(
  db: Executor,
  rule: Pick<AlarmRuleTable, 'id' | 'last_raised_at'>,
  at: string,
): Promise<boolean> {
  let q = db.updateTable('alarm_rule').set({ last_raised_at: at }).where('id', '=', rule.id);
  q =
    rule.last_raised_at === null
      ? q.where('last_raised_at', 'is', null)
      : q.where('last_raised_at', '=', rule.last_raised_at);
  const done = await q.executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export interface AlarmFilter {
  /** Only this domain's alarms; null: every domain's (root domain sessions). */
  domainId: string | null;
  state?: string | undefined;
  severity?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

function alarms(db: Executor, f: AlarmFilter) {
  let q = db.selectFrom('alarm');
  if (f.domainId !== null) q = q.where('domain_id', '=', f.domainId);
  if (f.state) q = q.where('state', '=', f.state);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.from) q = q.where('raised_at', '>=', new Date(f.from).toISOString());
  if (f.to) q = q.where('raised_at', '<', new Date(f.to).toISOString());
  return q;
}

export async function listAlarms(
  db: Executor,
  f: AlarmFilter,
  page: PageQuery | RowWindow,
): Promise<{ rows: AlarmTable[]; total: number }> {
  return pagedRows(alarms(db, f), page, (q) =>
    q.selectAll().orderBy('raised_at', 'desc').orderBy('id', 'desc'),
  );
}

export async function insertAlarm(db: Executor, row: AlarmTable): Promise<void> {
  await db.insertInto('alarm').values(row).execute();
}

/** The alarms of `ids` (of one domain, or any: null). */
export function alarmsIn(db: Executor, ids: string[], domainId: string | null) {
  let q = db.selectFrom('alarm').selectAll().where('id', 'in', ids);
  if (domainId !== null) q = q.where('domain_id', '=', domainId);
  return q.execute();
}

/** Acknowledges an alarm still open; false when it no longer is (another call took it). */
export async function acknowledgeOpen(db: Executor, id: string, by: string, at: string): Promise<boolean> {
  const done = await db
    .updateTable('alarm')
    .set({ state: 'acknowledged', acknowledged_by: by, acknowledged_at: at })
    .where('id', '=', id)
    .where('state', '=', 'open')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export async function openCounts(db: Executor, domainId: string | null): Promise<Map<string, number>> {
  const rows = await alarms(db, { domainId, state: 'open' })
    .select(['severity', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('severity')
    .execute();
  return new Map(rows.map((r) => [r.severity, Number(r.n)]));
}
