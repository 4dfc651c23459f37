import { z } from 'zod';
import { defineCall, writeCallsOf } from '../call.js';
import { Id, IdList, PageQuery, pageOf } from '../common.js';
import { ClientCounts, ClientRow, clientStatuses } from './client.js';

/**
 * TDE (CTE) and RDM clients, client groups and guard points (docs/modules.md#tde-and-rdm-clients):
 * the agents enrolled with a "cte" or "rdm" registration token (calls/client.ts), what they
 * protect (guard points on the client or inherited from its groups), and the profile they
 * apply. Every change here reaches the agents' configuration (contracts/agent.ts).
 * See docs/api.md "TDE and RDM clients" and modules/tde-client/README.md.
 */
export const guardPointTypes = ['directory_auto', 'directory_manual', 'rwp'] as const;
export type GuardPointType = (typeof guardPointTypes)[number];
/** An RDM client's protection, from its guard points (none: it has none enabled). */
export const protectionModes = ['none', 'rwp', 'cte', 'cte_rwp'] as const;
export type ProtectionMode = (typeof protectionModes)[number];
/** The client-record action (modules/client-log) an RDM agent uploads for a suspicious process. */
export const RDM_SUSPICIOUS_ACTION = 'rdm.suspicious';

/**
 * CTE's authorised binaries ("auth-binaries"): privilege–filename pairs. A binary with an
 * authenticator privilege (a login daemon, sshd, su, a database server that logs its own users
 * in) may authenticate users; the agent then takes a policy's user set to be the user the
 * binary authenticated instead of the OS account the process runs as.
 * - authenticator: the authenticated user's identity follows the session;
 * - authenticator_euid: … follows the process's effective uid after the switch;
 * - authenticator_uid: … follows the process's real uid after the switch.
 */
export const authBinaryPrivileges = ['authenticator', 'authenticator_euid', 'authenticator_uid'] as const;
export type AuthBinaryPrivilege = (typeof authBinaryPrivileges)[number];
/** At most this many authorised binaries on one client or one group. */
export const AUTH_BINARIES_MAX = 200;

export const TdeClientRow = ClientRow.extend({
  group_names: z.array(z.string()).describe('names of its client groups, in the order of `groups`'),
  guard_points: z.number().int().describe("guard points in effect: its own and its groups'"),
  communication_enabled: z
    .boolean()
    .describe(
      "false: the agent's signed calls (heartbeats) are refused until communication is enabled again",
    ),
  client_locked: z
    .boolean()
    .describe('true: the agent refuses local changes of its own configuration (unenrol, re-enrol)'),
  protection_mode: z
    .enum(protectionModes)
    .optional()
    .describe('RDM clients: rwp = ransomware protection only, cte = encryption only, cte_rwp = both'),
  suspicious_24h: z
    .number()
    .int()
    .optional()
    .describe(`RDM clients: client records "${RDM_SUSPICIOUS_ACTION}" it uploaded in the last 24 h`),
});
export type TdeClientRow = z.infer<typeof TdeClientRow>;

export const GuardPointOrigin = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('client') }),
  z.object({ kind: z.literal('group'), id: z.string(), name: z.string() }),
]);

export const GuardPointRow = z.object({
  id: z.string(),
  path: z.string().describe('absolute path on the client host'),
  type: z.enum(guardPointTypes),
  policy_id: z.string().nullable().describe('null for rwp guard points'),
  policy_name: z.string().nullable().describe('null for rwp, or when the policy no longer exists'),
  enabled: z.boolean(),
  origin: GuardPointOrigin.describe('the client itself, or the group it is inherited from'),
  created_at: z.string(),
});
export type GuardPointRow = z.infer<typeof GuardPointRow>;

export const ClientGroupRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  profile: z
    .string()
    .nullable()
    .describe('profile its members apply unless they name one; null: the default'),
  members: z.number().int(),
  guard_points: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ClientGroupRow = z.infer<typeof ClientGroupRow>;

const ProfileName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .nullable()
  .describe('a client profile of the domain by name; null: the default profile');
const Path = z
  .string()
  .trim()
  .min(2)
  .max(1024)
  .regex(/^(\/[^\0]*|[A-Za-z]:\\[^\0]*)$/u, 'an absolute path (/… or C:\\…)')
  .describe('absolute path on the host: /data/secure or C:\\data');
const ClientIdBody = z.object({ id: Id });

export const AuthBinaryOrigin = GuardPointOrigin;
export const AuthBinaryRow = z.object({
  filename: z.string().describe('absolute path of the executable on the client host'),
  privilege: z.enum(authBinaryPrivileges),
  signature_set_id: z.string().nullable().describe('a signature set (policy element) its hash must match'),
  signature_set_name: z.string().nullable().describe('null when none, or when the set no longer exists'),
  origin: AuthBinaryOrigin.describe('the client itself, or the group it is inherited from'),
});
export type AuthBinaryRow = z.infer<typeof AuthBinaryRow>;

export const AuthBinaryEntry = z.object({
  filename: Path.describe('absolute path of the executable: /usr/sbin/sshd or C:\\bin\\login.exe'),
  privilege: z.enum(authBinaryPrivileges),
  signature_set_id: Id.nullable()
    .default(null)
    .describe('optional: a signature set of the domain; the binary must match one of its hashes'),
});

/** The client calls of one sub-console: its own type only, its own permissions. */
function clientCallsOf(area: 'cte' | 'rdm') {
  const read = area === 'cte' ? 'cte:read' : 'rdm:read';
  const kind = area === 'cte' ? 'TDE' : 'RDM';
  const base = `/v1/ksp/${area}`;
  const tag = area === 'cte' ? 'tde-client' : 'rdm-client';
  const write = writeCallsOf({
    tag,
    access: area === 'cte' ? 'cte:write' : 'rdm:write',
    tokens: ['session', area],
  });
  return {
    list: defineCall({
      method: 'GET',
      path: `${base}/client/list`,
      summary: `${kind} clients of the current domain, with the status counts of the status bar`,
      tag,
      access: read,
      tokens: ['session', area],
      query: PageQuery.extend({
        name: z.string().trim().max(64).optional().describe('part of the name or host'),
        status: z.enum(clientStatuses).optional(),
        os: z.string().trim().max(64).optional().describe('part of the operating system'),
        group: Id.optional().describe('members of this client group'),
      }),
      data: pageOf(TdeClientRow).extend({ counts: ClientCounts }),
    }),
    detail: defineCall({
      method: 'GET',
      path: `${base}/client/detail`,
      summary: `A ${kind} client: identity, status, certificate, profile, groups`,
      tag,
      access: read,
      tokens: ['session', area],
      query: ClientIdBody,
      data: TdeClientRow,
    }),
    revoke: write({
      path: `${base}/client/revoke`,
      summary: 'Revoke a client: its certificate is revoked, so its agent can no longer authenticate',
      body: ClientIdBody,
      data: TdeClientRow,
    }),
    delete: write({
      path: `${base}/client/delete`,
      summary:
        "Delete a client: its next heartbeat answers `deleted`, and the agent's acknowledgement ends it",
      body: ClientIdBody,
      data: TdeClientRow,
    }),
    forceDelete: write({
      path: `${base}/client/force-delete`,
      summary:
        'Remove a client at once (its guard points and memberships with it); data it encrypted stays encrypted',
      body: ClientIdBody,
      data: z.object({ deleted: z.number().int() }),
    }),
    renew: write({
      path: `${base}/client/renew`,
      summary:
        'Issue the client a new certificate for the same key; the agent receives it with its next heartbeat',
      body: ClientIdBody,
      data: TdeClientRow,
    }),
    setProfile: write({
      path: `${base}/client/set-profile`,
      summary: "Assign a client profile (by name) to a client, or null for its groups' or the default one",
      body: z.object({ id: Id, profile: ProfileName }),
      data: TdeClientRow,
    }),
    setCommunication: write({
      path: `${base}/client/set-communication`,
      summary:
        "Enable or disable communication with a client: while disabled, its agent's heartbeats are refused (4001) and its status ages to error",
      body: z.object({ id: Id, enabled: z.boolean() }),
      data: TdeClientRow,
    }),
    guardPoints: defineCall({
      method: 'GET',
      path: `${base}/guard-point/list`,
      summary:
        "Guard points of a client (its own and its groups', with their origin) or of a client group (exactly one of client_id, group_id)",
      tag,
      access: read,
      tokens: ['session', area],
      query: z.object({ client_id: Id.optional(), group_id: Id.optional() }),
      data: z.object({ data: z.array(GuardPointRow) }),
    }),
    guardPointCreate: write({
      path: `${base}/guard-point/create`,
      summary:
        'Guard a path on a client or a client group: a policy for directory types (none for rwp); no two guard points on one path for a client',
      body: z.object({
        client_id: Id.optional(),
        group_id: Id.optional(),
        path: Path,
        type: z.enum(guardPointTypes),
        policy_id: Id.nullable().default(null).describe('required for directory types, null for rwp'),
        enabled: z.boolean().default(true),
      }),
      data: GuardPointRow,
    }),
    guardPointSetEnabled: write({
      path: `${base}/guard-point/set-enabled`,
      summary: 'Enable or disable a guard point (a disabled one stays configured, not applied)',
      body: z.object({ id: Id, enabled: z.boolean() }),
      data: GuardPointRow,
    }),
    guardPointDelete: write({
      path: `${base}/guard-point/delete`,
      summary: 'Unguard: remove a guard point (files already encrypted stay encrypted)',
      body: z.object({ id: Id }),
      data: z.object({ deleted: z.number().int() }),
    }),
  };
}

const GroupBody = z.object({
  name: z.string().trim().min(1).max(64),
  description: z.string().trim().max(256).default(''),
  profile: ProfileName.default(null),
});

/** TDE client and group changes: `cte:write`, from a session or a TDE sub-console token. */
const cteWrite = writeCallsOf({ tag: 'tde-client', access: 'cte:write', tokens: ['session', 'cte'] });

export const tdeClientCalls = {
  ...clientCallsOf('cte'),
  lock: cteWrite({
    path: '/v1/ksp/cte/client/lock',
    summary:
      'Lock or unlock a TDE client: while locked, its agent refuses local changes of its own configuration (unenrol, re-enrol)',
    body: z.object({ id: Id, locked: z.boolean() }),
    data: TdeClientRow,
  }),
  authBinaries: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/auth-binary/list',
    summary:
      "Authorised binaries of a TDE client (its own and its groups', with their origin) or of a client group (exactly one of client_id, group_id)",
    tag: 'tde-client',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    query: z.object({ client_id: Id.optional(), group_id: Id.optional() }),
    data: z.object({ data: z.array(AuthBinaryRow) }),
  }),
  authBinariesSet: cteWrite({
    path: '/v1/ksp/cte/auth-binary/set',
    summary: `Replace the authorised binaries of a TDE client or a client group (exactly one of client_id, group_id; at most ${AUTH_BINARIES_MAX}, no filename twice); answers the target's own list`,
    body: z.object({
      client_id: Id.optional(),
      group_id: Id.optional(),
      entries: z.array(AuthBinaryEntry).max(AUTH_BINARIES_MAX),
    }),
    data: z.object({ data: z.array(AuthBinaryRow) }),
  }),
  groupList: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/client-group/list',
    summary: 'Client groups of the current domain',
    tag: 'tde-client',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    query: PageQuery.extend({ name: z.string().trim().max(64).optional().describe('part of the name') }),
    data: pageOf(ClientGroupRow),
  }),
  groupDetail: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/client-group/detail',
    summary: 'A client group and its members',
    tag: 'tde-client',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    query: z.object({ id: Id }),
    data: ClientGroupRow.extend({
      member_list: z.array(
        z.object({ id: z.string(), name: z.string(), host: z.string(), status: z.enum(clientStatuses) }),
      ),
    }),
  }),
  groupCreate: cteWrite({
    path: '/v1/ksp/cte/client-group/create',
    summary: 'Create a client group (name unique in the domain)',
    body: GroupBody,
    data: ClientGroupRow,
  }),
  groupUpdate: cteWrite({
    path: '/v1/ksp/cte/client-group/update',
    summary: "Change a group's name, description or profile",
    body: GroupBody.extend({ id: Id }),
    data: ClientGroupRow,
  }),
  groupDelete: cteWrite({
    path: '/v1/ksp/cte/client-group/delete',
    summary: 'Delete a client group: refused (4090) while it has guard points; its members leave it',
    body: z.object({ id: Id }),
    data: z.object({ deleted: z.number().int() }),
  }),
  groupAddMembers: cteWrite({
    path: '/v1/ksp/cte/client-group/add-members',
    summary:
      "Add TDE clients to a group: refused (4090) when a group guard point's path is already guarded for one of them",
    body: z.object({ id: Id, client_ids: IdList }),
    data: ClientGroupRow,
  }),
  groupRemoveMembers: cteWrite({
    path: '/v1/ksp/cte/client-group/remove-members',
    summary: 'Remove clients from a group: they lose its guard points',
    body: z.object({ id: Id, client_ids: IdList }),
    data: ClientGroupRow,
  }),
};

export const rdmClientCalls = clientCallsOf('rdm');
