import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id } from '../common.js';
import { logExportFormats, logListQuery, logPageOf } from './log.js';

/**
 * Client records: what agents (CTE/RDM/KADP) upload about the file operations they saw
 * (docs/modules.md#client-records). The upload authenticates itself with the agent's client certificate
 * (docs/agent-log-upload.md); the console reads them on the log page's "Client records" tab.
 */
export const clientLogLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
export type ClientLogLevel = (typeof clientLogLevels)[number];
/** What the agent's policy did with the operation. */
export const clientLogEffects = ['permit', 'deny', 'audit'] as const;
export type ClientLogEffect = (typeof clientLogEffects)[number];

/** At most this many records in one upload (and the body at most 1 MiB). */
export const CLIENT_LOG_BATCH_MAX = 1000;
/** The `details` object of one record, as JSON, is at most this many characters. */
export const CLIENT_LOG_DETAILS_MAX = 4096;
/** The audience an upload token must name. */
export const CLIENT_LOG_AUDIENCE = 'ksp:log/client/upload';
/** An upload token lives at most this long (`exp - iat`). */
export const CLIENT_LOG_TOKEN_MAX_SECONDS = 300;
/** The clock difference tolerated between an agent and the server. */
export const CLIENT_LOG_CLOCK_SKEW_SECONDS = 60;
/** The scheme of the upload's Authorization header: `Authorization: Agent <JWS>`. */
export const AGENT_AUTH_SCHEME = 'Agent';

const IsoTime = z.iso.datetime({ offset: true });
const text = (max: number) => z.string().trim().max(max);

/** One record as an agent sends it. */
export const ClientLogInput = z.strictObject({
  level: z.enum(clientLogLevels),
  at: IsoTime.describe("the agent's time of the operation (ISO 8601 with offset)"),
  action: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[\w.:-]+$/)
    .describe('the file operation (action code), e.g. "read", "write", "rename", "key_fetch"'),
  effect: z
    .enum(clientLogEffects)
    .describe('what the policy did: permit, deny, or audit (permit and record)'),
  policy: text(128).default('').describe('the policy that decided'),
  guard_point: text(1024).default('').describe('the GuardPoint (protected path)'),
  os_user: text(256).default('').describe('the operating-system user that acted (the executor)'),
  process: text(1024).default('').describe('the process (executable path) that acted'),
  resource: text(4096).default('').describe('the file or device operated on'),
  details: z
    .record(z.string().max(64), z.unknown())
    .default({})
    .refine((value) => JSON.stringify(value).length <= CLIENT_LOG_DETAILS_MAX, {
      message: `must be at most ${CLIENT_LOG_DETAILS_MAX} characters as JSON`,
    })
    .describe(`anything else, at most ${CLIENT_LOG_DETAILS_MAX} characters as JSON; never secrets`),
});
export type ClientLogInput = z.input<typeof ClientLogInput>;

export const ClientLogUpload = z.strictObject({
  client_name: text(128).optional().describe("the agent's name (default: its certificate's common name)"),
  client_os: text(64).optional().describe('the operating system, e.g. "Linux 6.1", "Windows Server 2022"'),
  records: z.array(ClientLogInput).min(1).max(CLIENT_LOG_BATCH_MAX),
});

export const ClientLogRecord = z.object({
  id: z.string(),
  seq: z.number().int().describe('the order the server received it in (the syslog sequence id)'),
  level: z.enum(clientLogLevels),
  at: z.string().describe("the agent's time"),
  received_at: z.string().describe("the server's time of receipt"),
  action: z.string(),
  effect: z.enum(clientLogEffects),
  policy: z.string(),
  guard_point: z.string(),
  os_user: z.string(),
  process: z.string(),
  resource: z.string(),
  client_id: z.string().describe("the agent's certificate serial (hexadecimal)"),
  client_cn: z.string().describe("the agent's certificate common name"),
  client_name: z.string(),
  client_os: z.string(),
  ip: z.string().describe('the client address the server saw'),
  domain_name: z.string().describe('the domain of the CA that issued the agent certificate'),
  details: z.record(z.string(), z.unknown()),
});
export type ClientLogRecord = z.infer<typeof ClientLogRecord>;

export const ClientLogFilter = z.object({
  from: IsoTime.optional().describe('received at or after this time (ISO 8601)'),
  to: IsoTime.optional().describe('received before this time (ISO 8601)'),
  level: z.enum(clientLogLevels).optional(),
  effect: z.enum(clientLogEffects).optional().describe('the result: permit, deny or audit'),
  action: text(64).optional().describe('an action exactly, or a prefix ending with "."'),
  client: text(128).optional().describe('the client name, certificate common name or serial, exactly'),
  os_user: text(256).optional().describe('the executor (OS user), exactly'),
  ip: text(64).optional().describe('the client address, exactly'),
  q: text(128).optional().describe('text anywhere in the resource, process, GuardPoint, policy or details'),
});

export const clientLogCalls = {
  upload: defineCall({
    method: 'POST',
    path: '/v1/ksp/log/client/upload',
    summary:
      'An agent uploads its records. No token: the call authenticates itself with `Authorization: Agent <JWS>` signed by the key of a client certificate from an active local CA (docs/agent-log-upload.md); refusals answer HTTP 401 and are audited. All or nothing.',
    tag: 'log',
    access: 'public',
    changesAccess: false,
    body: ClientLogUpload,
    data: z.object({ accepted: z.number().int() }),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/client/list',
    summary:
      "Client records uploaded by the current domain's agents, newest first; all domains for the root domain",
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    query: logListQuery(ClientLogFilter),
    data: logPageOf(ClientLogRecord),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/client/detail',
    summary: 'One client record',
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    query: z.object({ id: Id }),
    data: ClientLogRecord,
  }),
  export: defineCall({
    method: 'GET',
    path: '/v1/ksp/log/client/export',
    summary: 'The client records the filters select, as a CSV or JSON file streamed as it is read',
    tag: 'log',
    access: 'log:read',
    changesAccess: false,
    download: ['text/csv', 'application/json'],
    query: ClientLogFilter.extend({ format: z.enum(logExportFormats).default('csv') }),
    data: z.never(),
  }),
};
