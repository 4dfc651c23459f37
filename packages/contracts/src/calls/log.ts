import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';

/** Server records: the audit trail every call writes (docs/modules.md#log-and-audit). */
export const logSeverities = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type LogSeverity = (typeof logSeverities)[number];
/** Where a record came from: the console (a session), the API (app or service tokens), the system's own work. */
export const logSources = ['web', 'api', 'agent', 'kmip', 'database', 'scheduler', 'cli'] as const;
export type LogSource = (typeof logSources)[number];
export const logResults = ['success', 'failure'] as const;
export const logExportFormats = ['csv', 'json'] as const;
/** The most records one export holds; narrow the filters for more. */
export const LOG_EXPORT_MAX = 1_000_000;
/** A list counts its records up to this many; beyond, `total_exact` is false. */
export const LOG_COUNT_MAX = 100_000;

const IsoTime = z.iso.datetime({ offset: true });

export const LogFilter = z.object({
  from: IsoTime.optional().describe('records at or after this time (ISO 8601)'),
  to: IsoTime.optional().describe('records before this time (ISO 8601)'),
  severity: z.enum(logSeverities).optional(),
  action: z
    .string()
    .trim()
    .max(64)
    .optional()
    .describe('an action ("key.create"), or a prefix ending with "." ("key.") for a whole area'),
  result: z.enum(logResults).optional(),
  username: z.string().trim().max(128).optional().describe('the executor, exactly'),
  ip: z.string().trim().max(64).optional().describe('the client address, exactly'),
  source: z.enum(logSources).optional(),
  q: z.string().trim().max(128).optional().describe('text anywhere in the target or the details'),
});

/** A position in the list, (time, id) of a record, as the list hands it out: opaque to callers. */
export const LogCursor = z
  .string()
  .trim()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a cursor from next_cursor');

/** The query of a log list: the page, the filters, and `after` to page by position instead. */
export function logListQuery<F extends z.ZodRawShape>(filter: z.ZodObject<F>) {
  return PageQuery.extend(filter.shape).extend({
    after: LogCursor.optional().describe(
      `the \`next_cursor\` of the page before: this page starts right after its last record, whatever \`page\` says (a deep page costs what the first one costs). Without it, pages by number reach the first ${LOG_COUNT_MAX.toLocaleString('en')} records (4000 log.pageTooDeep beyond)`,
    ),
  });
}

/** A page of a log list: its total capped at LOG_COUNT_MAX, and where the next page starts. */
export function logPageOf<T extends z.ZodType>(record: T) {
  return pageOf(record).extend({
    total_exact: z
      .boolean()
      .describe(
        `false when more than ${LOG_COUNT_MAX.toLocaleString('en')} records match: total is then that cap`,
      ),
    next_cursor: z
      .string()
      .nullable()
      .describe(
        'where the next page starts (pass it as `after` with the same filters); null on the last page',
      ),
  });
}

export const LogRecord = z.object({
  id: z.string(),
  at: z.string().describe('ISO time the record was made'),
  severity: z.enum(logSeverities),
  action: z.string(),
  target: z.string().describe('what the action was about (a name)'),
  result: z.enum(logResults),
  username: z.string().describe('the executor; "system" for the server\'s own work'),
  domain_name: z.string().describe('the executor\'s domain ("" for the system)'),
  source: z.enum(logSources),
  ip: z.string().describe('the client address ("" for the system)'),
  count: z.number().int().describe('operations the record stands for (identical cryptographic calls merged)'),
  object_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).describe('names, ids, counts and reasons; never secrets'),
});
export type LogRecord = z.infer<typeof LogRecord>;

export const ChainReport = z.object({
  domain: z.string().describe('the domain whose chain this is; "" for the server\'s own records'),
  records: z.number().int().describe('sealed records checked, from the anchor on'),
  first_seq: z.number().int(),
  last_seq: z.number().int().describe('the last place checked (the head when intact)'),
  ok: z.boolean(),
  broken: z
    .object({
      seq: z.number().int().describe('the first place that does not check'),
      id: z.string().nullable().describe('the record at that place, if there is one'),
      at: z.string().nullable(),
      reason: z
        .enum(['changed', 'missing', 'cut'])
        .describe(
          'changed: the record or its MAC differs; missing: no record at that place; cut: records after it are gone',
        ),
    })
    .nullable(),
});

export const logCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/list',
    summary:
      'Server records (the audit trail) of the current domain, newest first; all domains for the root domain',
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    query: logListQuery(LogFilter),
    data: logPageOf(LogRecord),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/detail',
    summary: 'One server record',
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    query: z.object({ id: Id }),
    data: LogRecord,
  }),
  verify: defineCall({
    method: 'POST',
    path: '/v1/ksp/log/verify',
    summary:
      "Walk the audit chains (the current domain's, or every chain from the root domain) and report the first broken link of each",
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    data: z.object({
      ok: z.boolean().describe('every chain checked is intact'),
      chains: z.array(ChainReport),
      unsealed: z
        .number()
        .int()
        .describe('records written but not sealed into a chain yet (sealed within seconds)'),
    }),
  }),
  export: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/export',
    summary: 'The server records the filters select, as a CSV or JSON file streamed as it is read',
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    download: ['text/csv', 'application/json'],
    query: LogFilter.extend({ format: z.enum(logExportFormats).default('csv') }),
    data: z.never(),
  }),
};
