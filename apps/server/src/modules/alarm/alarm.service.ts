import { v7 as uuidv7 } from 'uuid';
import {
  ALARM_SUMMARY_LATEST,
  alarmResults,
  type Alarm,
  type AlarmRule,
  type AlarmRuleResult,
  type AlarmSeverity,
  type AlarmState,
  type AlarmStream,
  type Input,
  type LogSeverity,
  type QueryInput,
  type api,
} from '@ksp/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db } from '../../platform/db/database.js';
import type { AlarmRuleTable, AlarmTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import * as store from './alarm.store.js';

/**
 * What the client log store (agents' records) offers the alarms: a count of the records
 * matching a client rule, stopped at `limit`. Another module provides it as the `clientLogs`
 * service; until it exists, client rules simply never raise.
 */
export interface ClientLogCounter {
  count(query: {
    /** Only this domain's records; null: every domain's. */
    domainId: string | null;
    action?: string;
    result?: 'permit' | 'deny' | 'audit';
    /** ISO time: records at or after it. */
    since: string;
    limit: number;
  }): Promise<number>;
}

/** What a session may reach: its domain's rules and alarms, or every domain's from the root domain. */
const visibleDomain = (actor: Actor) => (actor.systemScope ? null : actor.domainId);

/** The rule's result fits its stream; server severities do not apply to client records. */
function checkCondition(next: { stream: AlarmStream; result: string | null; min_severity: string | null }) {
  const allowed: readonly string[] = alarmResults[next.stream];
  if (next.result !== null && !allowed.includes(next.result))
    throw invalid('alarm.resultForStream', {
      result: next.result,
      stream: next.stream,
      allowed: allowed.join(', '),
    });
  if (next.stream === 'client' && next.min_severity !== null) throw invalid('alarm.severityForClient');
}

export function createAlarmService(deps: {
  db: Db;
  clock: Clock;
  /** Default: a writer stamping with `clock`. */
  audit?: AuditWriter;
  domainNames: (ids: string[]) => Promise<Map<string, string>>;
  /** The client log store's counter, when that module is there. */
  clientLogs: () => ClientLogCounter | undefined;
  log?: FastifyBaseLogger;
}) {
  const { db, clock } = deps;
  const audit = deps.audit ?? createAuditWriter(clock);
  const now = () => clock().toISOString();

  const names = (rows: { domain_id: string }[]) =>
    deps.domainNames([...new Set(rows.map((r) => r.domain_id))]);

  function ruleView(row: AlarmRuleTable, domains: Map<string, string>): AlarmRule {
    return {
      id: row.id,
      name: row.name,
      enabled: row.enabled === 1,
      stream: row.stream as AlarmStream,
      action: row.action,
      result: row.result as AlarmRuleResult | null,
      min_severity: row.min_severity as LogSeverity | null,
      threshold: Number(row.threshold),
      interval_seconds: Number(row.interval_seconds),
      severity: row.severity as AlarmSeverity,
      all_domains: row.all_domains === 1,
      domain_name: domains.get(row.domain_id) ?? '',
      last_raised_at: row.last_raised_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  function alarmView(row: AlarmTable, domains: Map<string, string>): Alarm {
    return {
      id: row.id,
      rule_id: row.rule_id,
      rule_name: row.rule_name,
      domain_name: domains.get(row.domain_id) ?? '',
      stream: row.stream as AlarmStream,
      severity: row.severity as AlarmSeverity,
      state: row.state as AlarmState,
      raised_at: row.raised_at,
      window_from: row.window_from,
      count: Number(row.count),
      threshold: Number(row.threshold),
      interval_seconds: Number(row.interval_seconds),
      acknowledged_by: row.acknowledged_by,
      acknowledged_at: row.acknowledged_at,
    };
  }

  const ruleDetails = (row: AlarmRuleTable) => ({
    stream: row.stream,
    action: row.action ?? '',
    result: row.result ?? '',
    min_severity: row.min_severity ?? '',
    threshold: Number(row.threshold),
    interval: Number(row.interval_seconds),
    severity: row.severity,
    enabled: row.enabled === 1,
  });

  async function findVisibleRule(actor: Actor, id: string) {
    const row = await store.findRule(db, id, visibleDomain(actor));
    if (!row) throw notFound('alarm.ruleNotFound', { id });
    return row;
  }

  /** Counts one rule's records and raises its alarm at the threshold; true when it raised. */
  async function evaluateRule(rule: AlarmRuleTable): Promise<boolean> {
    const at = clock();
    const intervalMs = Number(rule.interval_seconds) * 1000;
    const windowStart = at.getTime() - intervalMs;
    const last = rule.last_raised_at === null ? null : Date.parse(rule.last_raised_at);
    // Cooldown: one alarm per rule per interval.
    if (last !== null && last > windowStart) return false;
    // Records an earlier alarm stood for are not counted again.
    const since =
      last !== null && last === windowStart
        ? { at: rule.last_raised_at!, inclusive: false }
        : { at: new Date(windowStart).toISOString(), inclusive: true };
    const limit = Number(rule.threshold);
    let count: number;
    if (rule.stream === 'server') {
      count = await store.countServerRecords(db, rule, since, limit);
    } else {
      const clientLogs = deps.clientLogs();
      if (!clientLogs) return false;
      count = await clientLogs.count({
        domainId: rule.all_domains === 1 ? null : rule.domain_id,
        ...(rule.action ? { action: rule.action } : {}),
        ...(rule.result ? { result: rule.result as 'permit' | 'deny' | 'audit' } : {}),
        since: since.at,
        limit,
      });
    }
    if (count < limit) return false;
    const domainName = (await deps.domainNames([rule.domain_id])).get(rule.domain_id) ?? '';
    const raisedAt = at.toISOString();
    return db.transaction().execute(async (trx) => {
      if (!(await store.claimRaise(trx, rule, raisedAt))) return false;
      const id = uuidv7();
      await store.insertAlarm(trx, {
        id,
        rule_id: rule.id,
        rule_name: rule.name,
        domain_id: rule.domain_id,
        stream: rule.stream,
        severity: rule.severity,
        state: 'open',
        raised_at: raisedAt,
        window_from: since.at,
        count,
        threshold: limit,
        interval_seconds: Number(rule.interval_seconds),
        acknowledged_by: null,
        acknowledged_at: null,
      });
      // The raise is a server record of its own: chained, and forwarded on syslog's alarm stream.
      await audit.write(trx, {
        who: { userId: null, username: 'system', domainId: rule.domain_id, domainName, source: 'scheduler' },
        action: 'alarm.raise',
        target: rule.name,
        result: 'success',
        ip: '',
        severity: rule.severity as AlarmSeverity,
        objectId: id,
        details: {
          rule_id: rule.id,
          count,
          interval: Number(rule.interval_seconds),
          threshold: limit,
          stream: rule.stream,
        },
      });
      return true;
    });
  }

  return {
    async listRules(actor: Actor, query: QueryInput<typeof api.alarm.ruleList>) {
      const { rows, total } = await store.listRules(db, visibleDomain(actor), query);
      const domains = await names(rows);
      return { data: rows.map((r) => ruleView(r, domains)), total };
    },

    async createRule(actor: Actor, meta: RequestMeta, body: Input<typeof api.alarm.ruleCreate>) {
      const next = {
        stream: body.stream,
        result: body.result ?? null,
        min_severity: body.min_severity ?? null,
      };
      checkCondition(next);
      const at = now();
      const row: AlarmRuleTable = {
        id: uuidv7(),
        domain_id: actor.domainId,
        all_domains: actor.systemScope ? 1 : 0,
        name: body.name,
        enabled: body.enabled ? 1 : 0,
        stream: body.stream,
        action: body.action || null,
        result: next.result,
        min_severity: next.min_severity,
        threshold: body.threshold,
        interval_seconds: body.interval_seconds,
        severity: body.severity,
        last_raised_at: null,
        created_at: at,
        updated_at: at,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await store.insertRule(trx, row);
          await audit.byCaller(trx, actor, meta, {
            action: 'alarm.rule.create',
            target: row.name,
            details: ruleDetails(row),
            objectId: row.id,
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('alarm.ruleNameTaken', { name: body.name });
        throw err;
      }
      return ruleView(row, await names([row]));
    },

    async updateRule(actor: Actor, meta: RequestMeta, body: Input<typeof api.alarm.ruleUpdate>) {
      const stored = await findVisibleRule(actor, body.id);
      const pick = <T>(given: T | null | undefined, kept: T | null): T | null =>
        given === undefined ? kept : given === null || given === '' ? null : given;
      const next: AlarmRuleTable = {
        ...stored,
        name: body.name ?? stored.name,
        enabled: body.enabled === undefined ? stored.enabled : body.enabled ? 1 : 0,
        stream: body.stream ?? stored.stream,
        action: pick(body.action, stored.action),
        result: pick(body.result, stored.result),
        min_severity: pick(body.min_severity, stored.min_severity),
        threshold: body.threshold ?? stored.threshold,
        interval_seconds: body.interval_seconds ?? stored.interval_seconds,
        severity: body.severity ?? stored.severity,
        updated_at: now(),
      };
      checkCondition({
        stream: next.stream as AlarmStream,
        result: next.result,
        min_severity: next.min_severity,
      });
      const { id, domain_id: _domain, all_domains: _all, created_at: _created, ...changes } = next;
      try {
        await db.transaction().execute(async (trx) => {
          await store.updateRule(trx, id, changes);
          await audit.byCaller(trx, actor, meta, {
            action: 'alarm.rule.update',
            target: next.name,
            details: ruleDetails(next),
            objectId: id,
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('alarm.ruleNameTaken', { name: next.name });
        throw err;
      }
      return ruleView(next, await names([next]));
    },

    async deleteRules(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows = await store.rulesIn(db, ids, visibleDomain(actor));
      if (rows.length === 0) throw notFound('alarm.ruleNotFound', { id: ids[0] ?? '' });
      await db.transaction().execute(async (trx) => {
        await store.deleteRules(
          trx,
          rows.map((r) => r.id),
        );
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, {
            action: 'alarm.rule.delete',
            target: r.name,
            details: {},
            objectId: r.id,
          });
      });
      return { deleted: rows.length };
    },

    async list(actor: Actor, query: QueryInput<typeof api.alarm.list>) {
      const { rows, total } = await store.listAlarms(
        db,
        {
          domainId: visibleDomain(actor),
          state: query.state === 'all' ? undefined : query.state,
          severity: query.severity,
          from: query.from,
          to: query.to,
        },
        query,
      );
      const domains = await names(rows);
      return { data: rows.map((r) => alarmView(r, domains)), total };
    },

    async acknowledge(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows = await store.alarmsIn(db, ids, visibleDomain(actor));
      if (rows.length === 0) throw notFound('alarm.notFound', { id: ids[0] ?? '' });
      const open = rows.filter((r) => r.state === 'open');
      const at = now();
      let acknowledged = 0;
      await db.transaction().execute(async (trx) => {
        for (const r of open) {
          if (!(await store.acknowledgeOpen(trx, r.id, actor.username, at))) continue;
          acknowledged++;
          await audit.byCaller(trx, actor, meta, {
            action: 'alarm.acknowledge',
            target: r.rule_name,
            details: { severity: r.severity, raised_at: r.raised_at, count: Number(r.count) },
            objectId: r.id,
          });
        }
      });
      return { acknowledged };
    },

    async summary(actor: Actor) {
      const domainId = visibleDomain(actor);
      const counts = await store.openCounts(db, domainId);
      const { rows } = await store.listAlarms(
        db,
        { domainId, state: 'open' },
        { offset: 0, limit: ALARM_SUMMARY_LATEST },
      );
      const domains = await names(rows);
      const open = {
        WARNING: counts.get('WARNING') ?? 0,
        ERROR: counts.get('ERROR') ?? 0,
        CRITICAL: counts.get('CRITICAL') ?? 0,
      };
      return {
        open,
        total_open: open.WARNING + open.ERROR + open.CRITICAL,
        latest: rows.map((r) => alarmView(r, domains)),
      };
    },

    /**
     * One evaluation round (the `alarm.evaluate` job): every enabled rule counts its window and
     * raises when it reaches its threshold, outside its cooldown. A failing rule does not stop
     * the others. Returns the alarms raised.
     */
    async evaluate(): Promise<number> {
      let raised = 0;
      for (const rule of await store.enabledRules(db)) {
        try {
          if (await evaluateRule(rule)) raised++;
        } catch (err) {
          deps.log?.warn(
            { rule: rule.name, err: err instanceof Error ? err.message : String(err) },
            'alarm rule evaluation failed',
          );
        }
      }
      return raised;
    },
  };
}

export type AlarmService = ReturnType<typeof createAlarmService>;
