import { z } from 'zod';
import { defineCall, writeCallsOf, type TokenKind } from '../call.js';
import type { AgentConfig } from '../agent.js';
import { Id, PageQuery, pageOf } from '../common.js';

/**
 * Clients (docs/modules.md#clients-and-agents): agents on hosts (TDE, RDM) and applications (KADP) enrolled
 * with a registration token. An agent enrols once with a PKCS#10 CSR (its private key never
 * leaves it), receives a client certificate from its domain's default CA, then signs every
 * later call (heartbeat) with that key: see docs/api.md "Clients" and modules/client/README.md.
 */
export const clientTypes = ['tde', 'rdm', 'kadp', 'kmip'] as const;
export type ClientType = (typeof clientTypes)[number];
export const clientStatuses = ['healthy', 'warning', 'error', 'revoked', 'deleted'] as const;
export type ClientStatus = (typeof clientStatuses)[number];

/** How often an agent heartbeats, in seconds. */
export const CLIENT_HEARTBEAT_SECONDS = 60;
/** Heartbeat age (seconds) past which a client is `warning`: one missed interval (with grace). */
export const CLIENT_WARNING_SECONDS = 2 * CLIENT_HEARTBEAT_SECONDS;
/** Heartbeat age (seconds) past which a client is `error`: five intervals without a heartbeat. */
export const CLIENT_ERROR_SECONDS = 5 * CLIENT_HEARTBEAT_SECONDS;
/** How far (seconds) a signed agent call's timestamp may be from the server's clock. */
export const CLIENT_SIGNATURE_SKEW_SECONDS = 300;
/** The first line of what an agent signs (see `signedText`). */
export const CLIENT_SIGNATURE_CONTEXT = 'ksp-client-v1';

/**
 * The text an agent signs for a call: the context line, its client id, the timestamp (ms since
 * the epoch, decimal) and the lowercase hex SHA-256 of the payload text, joined by "\n".
 */
export const signedText = (clientId: string, timestamp: number, payloadSha256Hex: string): string =>
  [CLIENT_SIGNATURE_CONTEXT, clientId, String(timestamp), payloadSha256Hex].join('\n');

/** The tokens the console's client calls accept: a console session or a KADP sub-console token. */
const CLIENT_TOKENS: readonly TokenKind[] = ['session', 'kadp'];

const Facts = {
  os: z
    .string()
    .trim()
    .max(128)
    .describe('operating system, as the agent reports it (e.g. "Linux 6.1 x86_64")'),
  agent_version: z.string().trim().max(32).describe('version of the agent or connector software'),
  mac: z
    .string()
    .trim()
    .max(64)
    .describe('MAC address of the host\'s main interface ("aa:bb:cc:dd:ee:ff"), empty when unknown'),
  host: z.string().trim().max(255).describe('host name or IP address the agent runs on'),
};

/** What a heartbeat's payload may carry (the agent's facts as they are now; all optional). */
export const HeartbeatPayload = z.object({
  os: Facts.os.optional(),
  agent_version: Facts.agent_version.optional(),
  mac: Facts.mac.optional(),
  host: Facts.host.optional(),
  acknowledge_delete: z
    .boolean()
    .optional()
    .describe('true once the agent has unregistered after a heartbeat answered `deleted`'),
});
export type HeartbeatPayload = z.infer<typeof HeartbeatPayload>;

/** The longest a config call may wait for a change, in seconds. */
export const CLIENT_CONFIG_MAX_WAIT_SECONDS = 30;

/** What a config call's payload carries: the version the agent holds and how long to wait. */
export const ConfigPayload = z.object({
  since_version: z
    .number()
    .int()
    .min(0)
    .describe(
      'the `version` of the configuration the agent holds (0: none yet): a newer one is answered at once',
    ),
  wait_s: z
    .number()
    .int()
    .min(0)
    .max(CLIENT_CONFIG_MAX_WAIT_SECONDS)
    .default(25)
    .describe(
      `how long (seconds, at most ${CLIENT_CONFIG_MAX_WAIT_SECONDS}) to hold the call open waiting for a change; 0: answer at once`,
    ),
});
export type ConfigPayload = z.input<typeof ConfigPayload>;

const Loose = z.record(z.string(), z.unknown());
/** The agent configuration document (`AgentConfig` of contracts/agent.ts, described there field by field). */
export const AgentConfigDocument = z.object({
  client_id: z.string(),
  version: z
    .number()
    .int()
    .describe("the domain's configuration epoch when the document was read: the next call's `since_version`"),
  profile: Loose.nullable().describe('AgentProfile; null when no profile applies'),
  guard_points: z.array(Loose).describe('AgentGuardPoint[]: path, type, enabled, origin, compiled policy'),
  keys: z
    .array(Loose)
    .describe("AgentKey[]: the policies' keys, wrapped to the public key of the client's certificate"),
  auth_binaries: z
    .array(Loose)
    .optional()
    .describe("AgentAuthBinary[]: the client's authorised binaries, then its groups'"),
  client_locked: z
    .boolean()
    .optional()
    .describe('true: the agent refuses local changes of its configuration'),
}) as unknown as z.ZodType<AgentConfig>;

export const ClientCertificate = z.object({
  id: z.string().describe('the certificate (console certificates › local)'),
  serial: z.string().describe('serial number, hex'),
  not_before: z.string().describe('start of validity, ISO 8601 UTC'),
  not_after: z.string().describe('end of validity, ISO 8601 UTC'),
  ca_name: z.string().describe("the issuing CA of the client's domain"),
  revoked: z.boolean().describe('the certificate was revoked (the client with it)'),
});

export const ClientRow = z.object({
  id: z.string(),
  name: z.string().describe('the name the agent enrolled with'),
  type: z
    .enum(clientTypes)
    .describe(
      'tde: file encryption agent; rdm: anti-ransomware agent; kadp: application; kmip: KMIP client (docs/kmip.md)',
    ),
  os: z.string(),
  agent_version: z.string(),
  mac: z.string(),
  host: z.string(),
  status: z
    .enum(clientStatuses)
    .describe(
      `healthy: heartbeat within ${CLIENT_WARNING_SECONDS} s; warning: none for ${CLIENT_WARNING_SECONDS} s; error: none for ${CLIENT_ERROR_SECONDS} s; revoked: its certificate was revoked; deleted: deleted by an operator (awaiting or acknowledged by the agent)`,
    ),
  delete_acknowledged: z.boolean().describe("a deleted client's agent has acknowledged the deletion"),
  profile: z.string().nullable().describe('the client profile in effect; null: the default'),
  groups: z.array(z.string()).describe('ids of the client groups it belongs to'),
  token_name: z.string().describe('the registration token it enrolled with'),
  last_seen_at: z.string().describe('last heartbeat (enrolment until the first), ISO 8601 UTC'),
  registered_at: z.string().describe('enrolment time, ISO 8601 UTC'),
  certificate: ClientCertificate,
});
export type ClientRow = z.infer<typeof ClientRow>;

export const ClientCounts = z.object({
  total: z.number().int().describe('every client of the type in the domain, whatever its status'),
  errors: z.number().int(),
  warnings: z.number().int(),
  healthy: z.number().int(),
});

const ClientIdBody = z.object({ id: Id });

/** Where an agent sends its heartbeats (enrolment and heartbeat answers). */
const HeartbeatPort = z
  .number()
  .int()
  .nullable()
  .describe(
    "the server's agent listener (same host and scheme, this port) where heartbeats are best sent; null: none, heartbeat here",
  );

/** A call an agent signs with its client certificate's key (heartbeat, config). */
const SignedBody = z.object({
  client_id: Id.describe('the id enrolment answered'),
  timestamp: z
    .number()
    .int()
    .positive()
    .describe(
      `ms since the epoch; within ${CLIENT_SIGNATURE_SKEW_SECONDS} s of the server's clock and greater than the client's previous call's`,
    ),
  payload: z
    .string()
    .max(16_384)
    .describe("JSON text of the call's content (a heartbeat: HeartbeatPayload; config: ConfigPayload)"),
  signature: z
    .string()
    .max(2048)
    .describe(
      "Base64 signature of `signedText(client_id, timestamp, sha256hex(payload))` by the certificate's key: ECDSA (DER) with SHA-256 for EC keys, RSA PKCS#1 v1.5 SHA-256, or Ed25519",
    ),
});

/** KADP client changes: `kadp:write`, from a session or a KADP sub-console token. */
const kadpWrite = writeCallsOf({ tag: 'client', access: 'kadp:write', tokens: CLIENT_TOKENS });

/** Whether the agent is still enrolled: `deleted` once the client was deleted. */
const AgentState = z.enum(['enrolled', 'deleted']);

export const clientCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/kadp/client/list',
    summary: 'KADP clients of the current domain, with the status counts of the status bar',
    tag: 'client',
    access: 'kadp:read',
    tokens: CLIENT_TOKENS,
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional().describe('part of the name or host'),
      status: z.enum(clientStatuses).optional(),
    }),
    data: pageOf(ClientRow).extend({ counts: ClientCounts }),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/kadp/client/detail',
    summary: 'A KADP client: identity, status, certificate validity',
    tag: 'client',
    access: 'kadp:read',
    tokens: CLIENT_TOKENS,
    query: ClientIdBody,
    data: ClientRow,
  }),
  revoke: kadpWrite({
    path: '/v1/ksp/kadp/client/revoke',
    summary: 'Revoke a client: its certificate is revoked, so its agent can no longer authenticate',
    body: ClientIdBody,
    data: ClientRow,
  }),
  delete: kadpWrite({
    path: '/v1/ksp/kadp/client/delete',
    summary:
      "Delete a client: its next heartbeat answers `deleted`, and the agent's acknowledgement ends it (the certificate is then revoked)",
    body: ClientIdBody,
    data: ClientRow,
  }),
  forceDelete: kadpWrite({
    path: '/v1/ksp/kadp/client/force-delete',
    summary: 'Remove a client at once without waiting for its agent; its certificate is revoked',
    body: ClientIdBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  renew: kadpWrite({
    path: '/v1/ksp/kadp/client/renew',
    summary:
      "Issue the client a new certificate for the same key, as long as its token's validity; the agent receives it with its next heartbeat",
    body: ClientIdBody,
    data: ClientRow,
  }),

  enrol: defineCall({
    method: 'POST',
    path: '/v1/ksp/client/enrol',
    summary:
      "Agent enrolment: a registration token and a PKCS#10 CSR give a client certificate from the token domain's default CA",
    tag: 'client',
    access: 'public',
    signIn: true,
    changesAccess: false,
    body: z.object({
      token: z.string().trim().min(1).max(256).describe("the registration token's secret"),
      csr: z
        .string()
        .trim()
        .min(1)
        .max(65_536)
        .describe("PEM PKCS#10 of the agent's key; never a private key"),
      name: z.string().trim().min(1).max(64).describe("the client's name"),
      type: z
        .enum(clientTypes)
        .describe(
          'tde, rdm, kadp or kmip: must be the token\'s usage (tde: a "cte" token); a kmip client enrolled so has no role until an administrator gives it one (docs/kmip.md)',
        ),
      os: Facts.os.default(''),
      agent_version: Facts.agent_version.default(''),
      mac: Facts.mac.default(''),
      host: Facts.host.default(''),
    }),
    data: z.object({
      client_id: z.string().describe('the id the agent signs its later calls with'),
      certificate_pem: z.string(),
      chain_pem: z.array(z.string()).describe('the issuing CA first, up to its root'),
      serial: z.string(),
      not_after: z.string().describe("end of the certificate's validity, ISO 8601 UTC"),
      heartbeat_seconds: z.number().int().describe('how often to heartbeat, in seconds'),
      heartbeat_port: HeartbeatPort,
    }),
  }),
  heartbeat: defineCall({
    method: 'POST',
    path: '/v1/ksp/client/heartbeat',
    summary:
      "An agent's heartbeat, signed with its certificate's key: updates last seen and its facts; answers whether it is still enrolled",
    tag: 'client',
    access: 'public',
    changesAccess: false,
    body: SignedBody,
    data: z.object({
      state: AgentState.describe('deleted: the client was deleted; the agent unregisters and acknowledges'),
      heartbeat_seconds: z.number().int().describe('how often to heartbeat, in seconds'),
      certificate_pem: z
        .string()
        .describe("the client's current certificate (a renewed one replaces the agent's)"),
      serial: z.string(),
      not_after: z.string(),
      heartbeat_port: HeartbeatPort,
    }),
  }),
  config: defineCall({
    method: 'POST',
    path: '/v1/ksp/client/config',
    summary:
      "An agent's configuration, signed like the heartbeat (payload: ConfigPayload): answered at once when newer than `since_version`, else held open until a change or `wait_s` (long poll)",
    tag: 'client',
    access: 'public',
    changesAccess: false,
    body: SignedBody,
    data: z.object({
      state: AgentState.describe(
        'deleted: the client was deleted (an empty document); the agent unregisters',
      ),
      changed: z
        .boolean()
        .describe('the document is newer than `since_version` (false: the wait ended without a change)'),
      config: AgentConfigDocument,
    }),
  }),
};
