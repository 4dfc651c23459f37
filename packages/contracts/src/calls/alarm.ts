import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { NAME_PATTERN } from '../rules/text.js';
import { logSeverities } from './log.js';

/**
 * Alarms (docs/modules.md#alarms): a rule counts the records matching its condition within an interval;
 * at its threshold it raises an alarm, shown on the dashboard and forwarded to syslog.
 */
/** Which records a rule counts: the server's own (the audit trail) or those agents upload. */
export const alarmStreams = ['server', 'client'] as const;
export type AlarmStream = (typeof alarmStreams)[number];
/** An alarm's severity: the severity of its `alarm.raise` record. */
export const alarmSeverities = ['WARNING', 'ERROR', 'CRITICAL'] as const;
export type AlarmSeverity = (typeof alarmSeverities)[number];
export const alarmStates = ['open', 'acknowledged'] as const;
export type AlarmState = (typeof alarmStates)[number];
/** The result a rule may ask for, by stream: a server record succeeds or fails, a client record's effect. */
export const alarmResults = {
  server: ['success', 'failure'],
  client: ['permit', 'deny', 'audit'],
} as const satisfies Record<AlarmStream, readonly string[]>;
export const alarmRuleResults = [...alarmResults.server, ...alarmResults.client] as const;
export type AlarmRuleResult = (typeof alarmRuleResults)[number];

export const ALARM_INTERVAL_MIN = 10;
export const ALARM_INTERVAL_MAX = 7 * 86_400;
export const ALARM_THRESHOLD_MAX = 10_000;
/** The latest open alarms the summary (the dashboard card) holds. */
export const ALARM_SUMMARY_LATEST = 5;
/** An action ("user.login") or an area prefix ending with "." ("key.", "cert.ca."). */
export const ALARM_ACTION_PATTERN = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*\.?$/;

const RuleName = z.string().trim().min(1).max(64).regex(NAME_PATTERN);
const RuleAction = z
  .string()
  .trim()
  .max(64)
  .regex(ALARM_ACTION_PATTERN, {
    message: 'must be an action (user.login) or an area ending with "." (key.)',
  })
  .describe('an action ("user.login"), or a prefix ending with "." ("key.") for a whole area');

export const AlarmRuleInput = z.object({
  name: RuleName,
  enabled: z.boolean().default(true),
  stream: z.enum(alarmStreams).default('server'),
  action: RuleAction.optional().describe('the action or area counted; omitted: every action'),
  result: z
    .enum(alarmRuleResults)
    .optional()
    .describe('server records: success or failure; client records: permit, deny or audit; omitted: any'),
  min_severity: z
    .enum(logSeverities)
    .optional()
    .describe('server records only: count records of this severity or higher; omitted: any'),
  threshold: z.number().int().min(1).max(ALARM_THRESHOLD_MAX).describe('records that raise the alarm'),
  interval_seconds: z
    .number()
    .int()
    .min(ALARM_INTERVAL_MIN)
    .max(ALARM_INTERVAL_MAX)
    .describe('the window the records are counted in, and the time before the rule raises again'),
  severity: z.enum(alarmSeverities).default('WARNING').describe("the alarm's severity"),
});

export const AlarmRuleUpdate = z.object({
  id: Id,
  name: RuleName.optional(),
  enabled: z.boolean().optional(),
  stream: z.enum(alarmStreams).optional(),
  action: RuleAction.or(z.literal('')).nullable().optional().describe('null or "": every action'),
  result: z.enum(alarmRuleResults).nullable().optional().describe('null: any result'),
  min_severity: z.enum(logSeverities).nullable().optional().describe('null: any severity'),
  threshold: AlarmRuleInput.shape.threshold.optional(),
  interval_seconds: AlarmRuleInput.shape.interval_seconds.optional(),
  severity: z.enum(alarmSeverities).optional(),
});

export const AlarmRule = z.object({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  stream: z.enum(alarmStreams),
  action: z.string().nullable(),
  result: z.enum(alarmRuleResults).nullable(),
  min_severity: z.enum(logSeverities).nullable(),
  threshold: z.number().int(),
  interval_seconds: z.number().int(),
  severity: z.enum(alarmSeverities),
  all_domains: z
    .boolean()
    .describe("made in the root domain: counts every domain's records; otherwise its domain's only"),
  domain_name: z.string().describe('the domain the rule belongs to'),
  last_raised_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AlarmRule = z.infer<typeof AlarmRule>;

export const Alarm = z.object({
  id: z.string(),
  rule_id: z.string().describe('the rule that raised it (it may have been deleted since)'),
  rule_name: z.string(),
  domain_name: z.string(),
  stream: z.enum(alarmStreams),
  severity: z.enum(alarmSeverities),
  state: z.enum(alarmStates),
  raised_at: z.string(),
  window_from: z.string().describe('the start of the window the records were counted in'),
  count: z.number().int().describe('records counted (counting stops at the threshold)'),
  threshold: z.number().int(),
  interval_seconds: z.number().int(),
  acknowledged_by: z.string().nullable(),
  acknowledged_at: z.string().nullable(),
});
export type Alarm = z.infer<typeof Alarm>;

const IsoTime = z.iso.datetime({ offset: true });

export const alarmCalls = {
  ruleList: defineCall({
    method: 'GET',
    path: '/v1/ksp/alarm/rule/list',
    summary: "Alarm rules of the current domain, by name; every domain's from the root domain",
    tag: 'alarm',
    access: 'alarm:read',
    changesAccess: false,
    query: PageQuery,
    data: pageOf(AlarmRule),
  }),
  ruleCreate: defineCall({
    method: 'POST',
    path: '/v1/ksp/alarm/rule/create',
    summary: "Add an alarm rule to the current domain (in the root domain it counts every domain's records)",
    tag: 'alarm',
    access: 'alarm:write',
    changesAccess: false,
    body: AlarmRuleInput,
    data: AlarmRule,
  }),
  ruleUpdate: defineCall({
    method: 'POST',
    path: '/v1/ksp/alarm/rule/update',
    summary: 'Change an alarm rule (omitted fields keep their value; null clears a condition)',
    tag: 'alarm',
    access: 'alarm:write',
    changesAccess: false,
    body: AlarmRuleUpdate,
    data: AlarmRule,
  }),
  ruleDelete: defineCall({
    method: 'POST',
    path: '/v1/ksp/alarm/rule/delete',
    summary: 'Remove alarm rules (the alarms they raised stay)',
    tag: 'alarm',
    access: 'alarm:write',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/alarm/list',
    summary: 'Alarms of the current domain, newest first; all domains for the root domain',
    tag: 'alarm',
    access: 'alarm:read',
    changesAccess: false,
    query: PageQuery.extend({
      state: z.enum([...alarmStates, 'all']).default('all'),
      severity: z.enum(alarmSeverities).optional(),
      from: IsoTime.optional().describe('alarms raised at or after this time (ISO 8601)'),
      to: IsoTime.optional().describe('alarms raised before this time (ISO 8601)'),
    }),
    data: pageOf(Alarm),
  }),
  acknowledge: defineCall({
    method: 'POST',
    path: '/v1/ksp/alarm/acknowledge',
    summary: 'Acknowledge open alarms (those already acknowledged are left as they are)',
    tag: 'alarm',
    access: 'alarm:write',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ acknowledged: z.number().int() }),
  }),
  summary: defineCall({
    method: 'GET',
    path: '/v1/ksp/alarm/summary',
    summary: `Open alarms by severity and the latest ${ALARM_SUMMARY_LATEST} open ones (the dashboard card)`,
    tag: 'alarm',
    access: 'alarm:read',
    changesAccess: false,
    data: z.object({
      open: z.object({ WARNING: z.number().int(), ERROR: z.number().int(), CRITICAL: z.number().int() }),
      total_open: z.number().int(),
      latest: z.array(Alarm),
    }),
  }),
};
