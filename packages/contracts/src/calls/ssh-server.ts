import { z } from 'zod';
import { defineCall, writeCallsOf } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';
import { GENERATED_PASSWORD_MAX } from './credential.js';

/**
 * Servers of the SMS sub-console (docs/modules.md#ssh-servers): SSH targets whose root (or other
 * privileged) account KSP logs in to with a linked credential of the same domain, whose host
 * key is pinned once the user confirmed its fingerprint, and whose password KSP rotates.
 */
export const serverOses = ['linux'] as const;
export const serverAuthTypes = ['password', 'private-key'] as const;
export type ServerAuthType = (typeof serverAuthTypes)[number];
export const rotationResults = ['success', 'failure'] as const;
/** The shortest generated password a rotation sets (Debian's pam_unix wants 6 or more). */
export const ROTATION_LENGTH_MIN = 12;

const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:_-]+$/, 'a host name or an IP address')
  .describe('host name or IP address of the SSH server');
const Port = z.number().int().min(1).max(65535);
const Account = z
  .string()
  .trim()
  .min(1)
  .max(32)
  .regex(/^[a-z_][a-z0-9_.-]*\$?$/, 'a Unix account name')
  .describe('the account KSP logs in as and whose password it rotates (root, or an account of its own)');
/** An OpenSSH fingerprint: `SHA256:` and the unpadded Base64 of the host key's SHA-256. */
export const Fingerprint = z
  .string()
  .trim()
  .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 Base64 characters>')
  .describe('the host key fingerprint as OpenSSH prints it: SHA256:<Base64>');

const rotationShape = {
  rotation_enabled: z.boolean().describe('rotate the password on schedule'),
  rotation_days: z.number().int().min(1).max(365).describe('days between two rotations (1–365)'),
  rotation_hour: z
    .number()
    .int()
    .min(0)
    .max(23)
    .describe('the hour of the day (UTC) a scheduled rotation runs'),
  rotation_length: z
    .number()
    .int()
    .min(ROTATION_LENGTH_MIN)
    .max(GENERATED_PASSWORD_MAX)
    .describe('length of the generated password'),
  rotation_lower: z.boolean().describe('the generated password holds lower-case letters'),
  rotation_upper: z.boolean().describe('… upper-case letters'),
  rotation_digits: z.boolean().describe('… digits'),
  rotation_symbols: z.boolean().describe('… symbols'),
};

const settingsShape = {
  name: objectName(64),
  description: z.string().trim().max(500),
  host: Host,
  port: Port.describe('SSH port, 22 by default'),
  os: z
    .enum(serverOses)
    .describe('the operating system (Linux: rotation with chpasswd for root, passwd otherwise)'),
  account: Account,
  auth_type: z
    .enum(serverAuthTypes)
    .describe(
      'password: the credential holds the account password (and rotation changes it); private-key: an SSH private key',
    ),
  credential_id: Id.describe(
    'a credential of the same domain, of type password or ssh-private-key to match auth_type',
  ),
  ...rotationShape,
  terminal_users: z
    .array(z.string().trim().min(1).max(64))
    .max(100)
    .describe('user names allowed to open a terminal'),
  terminal_roles: z.array(Id).max(100).describe('roles whose users may open a terminal'),
};

export const ServerRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  host: z.string(),
  port: z.number().int(),
  os: z.enum(serverOses),
  account: z.string(),
  auth_type: z.enum(serverAuthTypes),
  credential_id: z.string().nullable().describe('null when the linked credential was deleted'),
  credential_name: z.string().nullable(),
  host_key_fingerprint: z.string().nullable().describe('the pinned host key; null until confirmed'),
  host_key_type: z.string().nullable().describe('the pinned host key algorithm (ssh-ed25519, …)'),
  rotation_enabled: z.boolean(),
  rotation_days: z.number().int(),
  rotation_hour: z.number().int(),
  rotation_length: z.number().int(),
  rotation_lower: z.boolean(),
  rotation_upper: z.boolean(),
  rotation_digits: z.boolean(),
  rotation_symbols: z.boolean(),
  next_rotation_at: z
    .string()
    .nullable()
    .describe('when the next scheduled rotation is due; null if disabled'),
  last_rotation_at: z.string().nullable(),
  last_rotation_result: z.enum(rotationResults).nullable(),
  terminal_users: z.array(z.string()),
  terminal_roles: z.array(z.string()),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ServerRow = z.infer<typeof ServerRow>;

export const ServerRotation = z.object({
  id: z.string(),
  at: z.string(),
  trigger: z.enum(['manual', 'schedule']),
  by: z.string().describe('who asked (the user name), or "scheduler"'),
  result: z.enum(rotationResults),
  version: z
    .number()
    .int()
    .nullable()
    .describe('the credential version the rotation committed; null on failure'),
  error: z.string().nullable().describe("the failure, in the reader's language"),
});
export type ServerRotation = z.infer<typeof ServerRotation>;

/** A role as the server form offers it (`terminal_roles` holds its id). */
export const RoleOption = z.object({
  id: Id,
  name: z.string(),
  type: z.enum(['built-in', 'custom']),
});
export type RoleOption = z.infer<typeof RoleOption>;

export const sessionStatuses = ['active', 'ended', 'interrupted'] as const;

export const ServerSession = z.object({
  id: z.string(),
  user_name: z.string().describe('who opened the terminal'),
  ip: z.string().describe("the browser's address as KSP saw it"),
  started_at: z.string().describe('ISO 8601 UTC'),
  ended_at: z.string().nullable().describe('ISO 8601 UTC; null while active or when cut off'),
  status: z
    .enum(sessionStatuses)
    .describe(
      'active: open now; ended: closed (see end_reason); interrupted: the node serving it stopped before it ended (recorded up to then)',
    ),
  end_reason: z
    .string()
    .nullable()
    .describe(
      'closed (browser closed), shell-exit, connection-closed, idle (15 min without input or output), max-length (8 h), interrupted; null while active',
    ),
  duration_s: z.number().int().nullable().describe('seconds; null while active'),
  bytes_in: z.number().int().describe('bytes typed in the browser'),
  bytes_out: z.number().int().describe('bytes the server printed'),
  recording_bytes: z.number().int().describe('size of the recording (asciicast v2 event lines), bytes'),
  recording_truncated: z
    .boolean()
    .describe('the recording stopped before the session did (32 MiB limit, or a storage failure)'),
});
export type ServerSession = z.infer<typeof ServerSession>;

const HostKey = z.object({
  fingerprint: z.string().describe('SHA256:<Base64>, as OpenSSH prints it'),
  key_type: z.string().describe('ssh-ed25519, ecdsa-sha2-nistp256, rsa-sha2-512, …'),
});

/** SSH server changes: `credential:write`, from a session or an SMS sub-console token. */
const serverWrite = writeCallsOf({
  tag: 'credential-server',
  access: 'credential:write',
  tokens: ['session', 'sms'],
});

export const sshServerCalls = {
  terminalTicket: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/server/terminal-ticket',
    summary:
      'A single-use ticket (valid 30 s) to open a web SSH terminal on a server whose terminal users or roles include the caller; send it as the first message on the WebSocket /ws/ssh',
    tag: 'credential-server',
    access: 'credential:use',
    tokens: ['session', 'sms'],
    changesAccess: false,
    body: z.object({ id: Id }),
    data: z.object({
      ticket: z.string().describe('random, 256 bits, Base64url; kept hashed by the server'),
      expires_in: z.number().int().describe('seconds the ticket stays valid'),
    }),
  }),
  roleOptions: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/role-options',
    summary: 'Roles of the current domain a server may let open a terminal, by name',
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional().describe('part of the role name'),
      ids: z
        .string()
        .trim()
        .regex(/^[0-9a-f-]{36}(,[0-9a-f-]{36}){0,99}$/i, 'up to 100 role ids, comma separated')
        .optional()
        .describe('only these roles (comma-separated ids, at most 100): names the roles a server lists'),
    }),
    data: pageOf(RoleOption),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/list',
    summary: 'Servers of the current domain',
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional().describe('part of the name or of the host'),
    }),
    data: pageOf(ServerRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/detail',
    summary: "A server's settings, its pinned host key and its last rotation",
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: z.object({ id: Id }),
    data: ServerRow,
  }),
  create: serverWrite({
    path: '/v1/ksp/credential/server/create',
    summary:
      'Add a server; give the host key fingerprint the user confirmed (from fetch-fingerprint) to pin it now, or confirm it later',
    body: z.object({
      ...settingsShape,
      description: settingsShape.description.default(''),
      port: settingsShape.port.default(22),
      os: settingsShape.os.default('linux'),
      account: settingsShape.account.default('root'),
      auth_type: settingsShape.auth_type.default('password'),
      rotation_enabled: rotationShape.rotation_enabled.default(false),
      rotation_days: rotationShape.rotation_days.default(30),
      rotation_hour: rotationShape.rotation_hour.default(2),
      rotation_length: rotationShape.rotation_length.default(24),
      rotation_lower: rotationShape.rotation_lower.default(true),
      rotation_upper: rotationShape.rotation_upper.default(true),
      rotation_digits: rotationShape.rotation_digits.default(true),
      rotation_symbols: rotationShape.rotation_symbols.default(false),
      terminal_users: settingsShape.terminal_users.default([]),
      terminal_roles: settingsShape.terminal_roles.default([]),
      host_key_fingerprint: Fingerprint.nullable()
        .default(null)
        .describe(
          'the fingerprint the user confirmed; the server connects and pins it only if the host presents it',
        ),
    }),
    data: ServerRow,
  }),
  update: serverWrite({
    path: '/v1/ksp/credential/server/update',
    summary:
      "Change a server's settings; a new host or port forgets the pinned host key (confirm the new one before connecting)",
    body: z.object(settingsShape).partial().extend({ id: Id }),
    data: ServerRow,
  }),
  delete: serverWrite({
    path: '/v1/ksp/credential/server/delete',
    summary: 'Delete servers and their rotation history (their credentials stay)',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  fetchFingerprint: serverWrite({
    path: '/v1/ksp/credential/server/fetch-fingerprint',
    summary:
      "Connect to a host (a server's, by id, or a host and port being added) and answer its host key fingerprint, without logging in",
    body: z
      .object({ id: Id.optional(), host: Host.optional(), port: Port.default(22) })
      .refine((b) => (b.id === undefined) !== (b.host === undefined), { message: 'give either id or host' }),
    data: HostKey.extend({
      pinned: z.string().nullable().describe("the server's pinned fingerprint (by id), null otherwise"),
    }),
  }),
  confirmFingerprint: serverWrite({
    path: '/v1/ksp/credential/server/confirm-fingerprint',
    summary:
      'Pin the host key the user confirmed: the server connects again and pins it only if the host still presents that fingerprint',
    body: z.object({ id: Id, fingerprint: Fingerprint }),
    data: ServerRow,
  }),
  test: serverWrite({
    path: '/v1/ksp/credential/server/test',
    summary:
      'Connection test: log in with the current credential, the pinned host key verified, and run `id`; audited',
    body: z.object({ id: Id }),
    data: z.object({ output: z.string().describe('what `id` printed'), elapsed_ms: z.number().int() }),
  }),
  rotate: serverWrite({
    path: '/v1/ksp/credential/server/rotate',
    summary:
      'Rotate now: set a new generated password on the server, check a fresh login with it, then store it as the next credential version; on failure the old version stays current',
    body: z.object({ id: Id }),
    data: ServerRotation,
  }),
  sessions: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/sessions',
    summary: "A server's web terminal sessions, latest first",
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: PageQuery.extend({ id: Id.describe('the server') }),
    data: pageOf(ServerSession),
  }),
  recording: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/session/recording',
    summary:
      "A terminal session's recording as an asciicast v2 file (output and resize events; keystrokes are not recorded); every replay is audited",
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: z.object({ id: Id.describe('the session') }),
    data: z.object({
      session: ServerSession,
      server_id: z.string(),
      cast: z
        .string()
        .describe(
          'asciicast v2: a JSON header line {version: 2, width, height, timestamp (s since the epoch), title, env}, then one JSON array per line [seconds since start, "o" | "r" | "m", data]',
        ),
    }),
  }),
  rotations: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/server/rotations',
    summary: "A server's rotation history, latest first",
    tag: 'credential-server',
    access: 'credential:read',
    tokens: ['session', 'sms'],
    query: PageQuery.extend({ id: Id }),
    data: pageOf(ServerRotation),
  }),
};
