import { z } from 'zod';
import { ALGORITHM_IDS } from '../algorithms.js';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { NAME_PATTERN } from '../rules/text.js';

/**
 * The scheduler (docs/modules.md#scheduler): tasks that rotate keys on a cron schedule. A task belongs
 * to the domain it was made in; its key query only ever matches that domain's keys.
 */
export const schedulerTaskTypes = ['key_rotation'] as const;
export type SchedulerTaskType = (typeof schedulerTaskTypes)[number];

/** The repeat periods (docs/console.md#constants) of the run-interval builder. */
export const schedulerPeriods = ['year', 'month', 'week', 'day'] as const;
export type SchedulerPeriod = (typeof schedulerPeriods)[number];

/** Weekdays as cron numbers them: Sunday 0 to Saturday 6. */
export const WEEKDAYS = [0, 1, 2, 3, 4, 5, 6] as const;

export const SchedulerInterval = z
  .object({
    period: z.enum(schedulerPeriods),
    minute: z.number().int().min(0).max(59).default(0),
    hour: z.number().int().min(0).max(23).default(0),
    month: z.number().int().min(1).max(12).optional().describe('year: the month (1 = January)'),
    day_of_month: z.number().int().min(1).max(31).optional().describe('year and month: the day of the month'),
    weekdays: z
      .array(z.number().int().min(0).max(6))
      .max(7)
      .optional()
      .describe('week: the weekdays, 0 = Sunday to 6 = Saturday'),
  })
  .describe('the run interval as the console builds it; the server compiles it to `cron`');
export type SchedulerInterval = z.infer<typeof SchedulerInterval>;

/**
 * The five-field cron expression of an interval (minute hour day-of-month month day-of-week),
 * or the reason it is incomplete. The console shows it as it is built; the server stores it.
 */
export function intervalToCron(
  interval: z.input<typeof SchedulerInterval>,
): { cron: string } | { missing: 'month' | 'day_of_month' | 'weekdays' } {
  const minute = interval.minute ?? 0;
  const hour = interval.hour ?? 0;
  switch (interval.period) {
    case 'day':
      return { cron: `${minute} ${hour} * * *` };
    case 'week': {
      const days = [...new Set(interval.weekdays ?? [])].sort((a, b) => a - b);
      if (days.length === 0) return { missing: 'weekdays' };
      return { cron: `${minute} ${hour} * * ${days.join(',')}` };
    }
    case 'month':
      if (interval.day_of_month === undefined) return { missing: 'day_of_month' };
      return { cron: `${minute} ${hour} ${interval.day_of_month} * *` };
    case 'year':
      if (interval.month === undefined) return { missing: 'month' };
      if (interval.day_of_month === undefined) return { missing: 'day_of_month' };
      return { cron: `${minute} ${hour} ${interval.day_of_month} ${interval.month} *` };
  }
}

/** Which keys a rotation task rotates: every condition given must hold; none given means all keys. */
export const KeyRotationQuery = z
  .object({
    algorithms: z.array(z.enum(ALGORITHM_IDS)).max(64).optional().describe('any of these algorithms'),
    name_pattern: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .regex(/^\P{Cc}*$/u, { message: 'no control characters' })
      .optional()
      .describe('the key name, `*` any characters and `?` one character (case-sensitive)'),
    labels: z
      .record(z.string().trim().min(1).max(64), z.string().max(256))
      .refine((r) => Object.keys(r).length <= 32, { message: 'at most 32 labels' })
      .optional()
      .describe('labels the key carries, each with this value'),
    min_age_days: z
      .number()
      .int()
      .min(0)
      .max(36_500)
      .optional()
      .describe('the current version is at least this many days old'),
  })
  .strict()
  .default({});
export type KeyRotationQuery = z.infer<typeof KeyRotationQuery>;

const Instant = z.iso.datetime({ offset: true });

export const SchedulerTaskInput = z.object({
  name: z.string().trim().min(1).max(64).regex(NAME_PATTERN),
  description: z.string().trim().max(256).default(''),
  type: z.enum(schedulerTaskTypes).default('key_rotation'),
  cron: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .optional()
    .describe('five-field cron in UTC (minute hour day-of-month month day-of-week); give this or `interval`'),
  interval: SchedulerInterval.optional(),
  start_at: Instant.nullable().optional().describe('no run before this time (RFC 3339)'),
  end_at: Instant.nullable().optional().describe('no run after this time (RFC 3339)'),
  enabled: z.boolean().default(true),
  query: KeyRotationQuery,
});

export const schedulerResults = ['success', 'failure'] as const;
export const schedulerRunStates = ['pending', 'running', 'success', 'failure'] as const;
export type SchedulerRunState = (typeof schedulerRunStates)[number];
export const schedulerTriggers = ['schedule', 'missed', 'manual'] as const;

export const SchedulerTask = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(schedulerTaskTypes),
  cron: z.string(),
  interval: SchedulerInterval.nullable().describe('as built in the console, or null for a cron typed in'),
  start_at: z.string().nullable(),
  end_at: z.string().nullable(),
  enabled: z.boolean(),
  query: KeyRotationQuery,
  next_run_at: z.string().nullable().describe('null when disabled or when no slot is left before end_at'),
  last_run_at: z.string().nullable(),
  last_result: z.enum(schedulerRunStates).nullable(),
  last_error: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string().describe('last modified'),
});
export type SchedulerTask = z.infer<typeof SchedulerTask>;

export const SchedulerRun = z.object({
  id: z.string(),
  task_id: z.string(),
  task_name: z.string(),
  trigger: z
    .enum(schedulerTriggers)
    .describe('schedule: its slot; missed: slots passed while no node ran (run once); manual: run now'),
  state: z.enum(schedulerRunStates),
  requested_by: z.string(),
  node: z.string().nullable().describe('the node that ran (or last resumed) it'),
  backup_id: z.string().nullable().describe('the key-rotation backup taken before any key was rotated'),
  matched: z.number().int().describe('keys the query matched when the run began'),
  rotated: z.number().int(),
  failed: z.number().int(),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type SchedulerRun = z.infer<typeof SchedulerRun>;

export const SchedulerRunKey = z.object({
  key_id: z.string(),
  key_name: z.string(),
  result: z.enum(['pending', 'rotated', 'failed']),
  version: z.number().int().nullable().describe('the version the rotation made'),
  error: z.string().nullable(),
});

const TaskId = z.object({ id: Id });

export const schedulerCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/scheduler/list',
    summary: "The current domain's scheduled tasks with their schedule, next run and last result",
    tag: 'scheduler',
    access: 'scheduler:read',
    changesAccess: false,
    query: PageQuery,
    data: pageOf(SchedulerTask),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/create',
    summary: 'Add a key-rotation task (cron or run interval, optional start and end, key query)',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: SchedulerTaskInput,
    data: SchedulerTask,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/update',
    summary:
      'Change a task (omitted fields keep their value; a new cron or interval recomputes the next run)',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: z.object({
      id: Id,
      name: SchedulerTaskInput.shape.name.optional(),
      description: z.string().trim().max(256).optional(),
      cron: SchedulerTaskInput.shape.cron,
      interval: SchedulerInterval.optional(),
      start_at: SchedulerTaskInput.shape.start_at,
      end_at: SchedulerTaskInput.shape.end_at,
      enabled: z.boolean().optional(),
      query: KeyRotationQuery.optional(),
    }),
    data: SchedulerTask,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/delete',
    summary: 'Remove tasks and their run history (a run under way finishes the key it is on, then stops)',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  enable: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/enable',
    summary: 'Enable a task: its next run is computed from now',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: TaskId,
    data: SchedulerTask,
  }),
  disable: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/disable',
    summary: 'Disable a task: it has no next run until enabled (run now still works)',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: TaskId,
    data: SchedulerTask,
  }),
  runNow: defineCall({
    method: 'POST',
    path: '/v1/ksp/scheduler/run-now',
    summary:
      'Queue a run of the task now; the node holding the scheduler lease runs it (answered at once, state pending)',
    tag: 'scheduler',
    access: 'scheduler:write',
    changesAccess: false,
    body: TaskId,
    data: SchedulerRun,
  }),
  history: defineCall({
    method: 'GET',
    path: '/v1/ksp/scheduler/history',
    summary: "A task's runs, newest first; with run_id, that run's keys and what became of each",
    tag: 'scheduler',
    access: 'scheduler:read',
    changesAccess: false,
    query: PageQuery.extend({ id: Id, run_id: Id.optional() }),
    data: pageOf(SchedulerRun).extend({ keys: z.array(SchedulerRunKey) }),
  }),
};
