import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';
import { IpWhitelist } from './access-common.js';

/**
 * TDE database clients (docs/tde-database.md): databases that encrypt their own data at rest
 * (MariaDB's `hashicorp_key_management` plugin, and others that read keys the same way) with
 * keys they read from KSP's key endpoint, which speaks the part of the HashiCorp Vault KV
 * version 2 interface those plugins use. Each client belongs to a domain, reads with its access
 * token (sent as `X-Vault-Token`; shown once, regenerable, revocable, bound to an IP
 * whitelist), and may read only the KSP AES-256 keys granted to it, each under the numeric key
 * id the database asks for. A key's versions are the KV versions.
 */

/** The KV version 2 mount KSP serves: the plugin's URL is `https://<ksp>/v1/<mount>`. */
export const DB_KEY_MOUNT = 'tde';
/** The path prefix of the key endpoint (`/v1/tde`), and of the mount check (`/v1/sys/mounts/tde/tune`). */
export const DB_KEY_PATH = `/v1/${DB_KEY_MOUNT}`;
export const DB_KEY_MOUNT_CHECK_PATH = `/v1/sys/mounts/${DB_KEY_MOUNT}/tune`;
/** The header the database sends its token in (Vault's). */
export const DB_TOKEN_HEADER = 'x-vault-token';
/** What every database token starts with, so a leaked one is recognisable. */
export const DB_TOKEN_PREFIX = 'kspdb_';
/** The largest key id a database may use (MariaDB's key ids are unsigned 32-bit; 0 is not one). */
export const DB_KEY_ID_MAX = 4_294_967_295;
/** Keys one client may be granted. */
export const DB_KEYS_PER_CLIENT_MAX = 256;

const DbClientName = objectName(64);
const Description = z.string().trim().max(256);

export const DbKeyId = z
  .number()
  .int()
  .min(1)
  .max(DB_KEY_ID_MAX)
  .describe("the key id the database asks for (MariaDB's ENCRYPTION_KEY_ID: 1 is its default key)");

export const DbClientRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean().describe('false: every read is refused (403) until enabled again'),
  ip_whitelist: z
    .array(z.string())
    .describe('addresses or CIDR ranges the database may read from; empty: any'),
  token_hint: z
    .string()
    .nullable()
    .describe('the first characters of the current token, to tell tokens apart; null: no token (revoked)'),
  token_issued_at: z
    .string()
    .nullable()
    .describe('when the current token was made, ISO 8601 UTC; null: none'),
  keys: z.number().int().describe('keys granted'),
  last_read_at: z
    .string()
    .nullable()
    .describe('the last key read, ISO 8601 UTC (written once a minute); null: none yet'),
  last_read_ip: z.string().describe('the address of the last key read; empty: none yet'),
  created_at: z.string(),
});
export type DbClientRow = z.infer<typeof DbClientRow>;

export const DbKeyGrant = z.object({
  db_key_id: z.number().int(),
  key_id: z.string().describe('the KSP key'),
  key_name: z.string(),
  key_state: z.string().describe("the KSP key's state: only an active key is served"),
  current_version: z
    .number()
    .int()
    .describe("the key's current version: the KV version the database reads as latest"),
  reads: z.number().int().describe('reads of this key by this client (counted once a minute)'),
  last_read_at: z.string().nullable(),
  last_version: z.number().int().nullable().describe('the version last read; null: none yet'),
  granted_at: z.string(),
});
export type DbKeyGrant = z.infer<typeof DbKeyGrant>;

export const DbClientDetail = DbClientRow.extend({ grants: z.array(DbKeyGrant) });
export type DbClientDetail = z.infer<typeof DbClientDetail>;

/** A new token: answered once, never kept (KSP keeps a hash). */
const Issued = z.object({
  client: DbClientRow,
  token: z
    .string()
    .describe(
      `the access token (\`${DB_TOKEN_PREFIX}…\`): answered only now; the database sends it as X-Vault-Token`,
    ),
});

/** Who has read a key from the key endpoint (the key detail's "Database reads"). */
export const DbKeyReader = z.object({
  client_id: z.string(),
  client_name: z.string(),
  db_key_id: z.number().int(),
  reads: z.number().int(),
  last_read_at: z.string().nullable(),
  last_version: z.number().int().nullable(),
});
export type DbKeyReader = z.infer<typeof DbKeyReader>;

const ClientId = z.object({ id: Id });
/** The TDE sub-console's pages run with a console session or a TDE sub-console token. */
const CTE_TOKENS = ['session', 'cte'] as const;

export const tdeDatabaseCalls = {
  endpoint: defineCall({
    method: 'GET',
    path: '/v1/ksp/tde/database/endpoint',
    summary:
      "The key endpoint databases read from: its path (the plugin's URL is this node's address and this path) and the certificate it is served with",
    tag: 'tde-database',
    access: 'cte:read',
    tokens: CTE_TOKENS,
    data: z.object({
      path: z.string().describe(`the path the plugin's URL ends with: ${DB_KEY_PATH}`),
      mount: z.string().describe('the KV mount name inside that path'),
      tls: z
        .boolean()
        .describe(
          'false: this node serves plain HTTP (databases then send tokens in clear: not for production)',
        ),
      server_certificate_pem: z
        .string()
        .describe(
          "this node's TLS certificate (the database checks it with the CA file of docs/tde-database.md); empty without TLS",
        ),
    }),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/tde/database/list',
    summary: 'Database clients of the current domain',
    tag: 'tde-database',
    access: 'cte:read',
    tokens: CTE_TOKENS,
    query: PageQuery.extend({ name: z.string().trim().max(64).optional().describe('part of the name') }),
    data: pageOf(DbClientRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/tde/database/detail',
    summary: 'One database client with the keys granted to it and their reads',
    tag: 'tde-database',
    access: 'cte:read',
    tokens: CTE_TOKENS,
    query: ClientId,
    data: DbClientDetail,
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/create',
    summary: 'Create a database client; answers its access token once',
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: z.object({
      name: DbClientName,
      description: Description.default(''),
      ip_whitelist: IpWhitelist.default([]),
    }),
    data: Issued,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/update',
    summary: "Change a database client's description or IP whitelist, or disable / enable it",
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: z.object({
      id: Id,
      description: Description.optional(),
      ip_whitelist: IpWhitelist.optional(),
      enabled: z.boolean().optional(),
    }),
    data: DbClientRow,
  }),
  regenerateToken: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/token/regenerate',
    summary:
      'Make a new access token for a database client (answered once); the old one stops working at once',
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: ClientId,
    data: Issued,
  }),
  revokeToken: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/token/revoke',
    summary: "Revoke a database client's token: every read is refused until a new one is made",
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: ClientId,
    data: DbClientRow,
  }),
  grant: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/grant',
    summary:
      'Let a database client read a KSP AES-256 key of the domain under a key id (replaces what that key id named)',
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: z.object({
      id: Id,
      db_key_id: DbKeyId,
      key_id: Id.describe('an AES-256 key of the current domain'),
    }),
    data: DbClientDetail,
  }),
  ungrant: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/ungrant',
    summary: 'Take a key id away from a database client: its next read of that id is refused',
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: z.object({ id: Id, db_key_id: DbKeyId }),
    data: DbClientDetail,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/tde/database/delete',
    summary: 'Delete a database client (its token and grants go with it; the keys stay)',
    tag: 'tde-database',
    access: 'cte:write',
    tokens: CTE_TOKENS,
    body: ClientId,
    data: z.object({ deleted: z.number().int() }),
  }),
  keyOptions: defineCall({
    method: 'GET',
    path: '/v1/ksp/tde/database/key-options',
    summary:
      'Keys a database client may be granted: the AES-256 keys of the domain in use, by name (at most 1000)',
    tag: 'tde-database',
    access: 'cte:read',
    tokens: CTE_TOKENS,
    query: z.object({ name: z.string().trim().max(64).optional().describe('part of the name') }),
    data: z.array(z.object({ id: z.string(), name: z.string(), current_version: z.number().int() })),
  }),
  keyReaders: defineCall({
    method: 'GET',
    path: '/v1/ksp/tde/database/key-readers',
    summary: 'The database clients that may read a key, with their reads (the key detail)',
    tag: 'tde-database',
    access: 'key:read',
    tokens: ['session', 'kms'],
    query: z.object({ key_id: Id }),
    data: z.array(DbKeyReader),
  }),
};

/** The Vault-shaped answer of a key read: the key in hex under data.data.data, its version under data.metadata.version. */
export const DbKeyAnswer = z.object({
  data: z.object({
    data: z.object({ data: z.string().describe('the key, 64 hexadecimal digits (AES-256)') }),
    metadata: z.object({
      version: z.number().int().describe("the KSP key's version number"),
      created_time: z.string().describe('when the version was made, ISO 8601 UTC'),
      deletion_time: z.string().describe('always empty'),
      destroyed: z.boolean().describe('always false: a destroyed key is refused'),
    }),
  }),
});

/**
 * The key endpoint's two calls (docs/tde-database.md), declared like the REST calls so the one
 * access check judges them: a database client's token only (kind `database`), carrying the one
 * permission `key:use`, in the client's domain; each read then needs a grant of the key id. They
 * answer Vault's JSON, not KSP's envelope, so they are not part of `api`.
 */
export const dbKeyCalls = {
  mountCheck: defineCall({
    method: 'GET',
    path: DB_KEY_MOUNT_CHECK_PATH,
    summary: "The mount check the plugin makes at start: answers the mount's options, KV version 2",
    tag: 'tde-database',
    access: 'key:use',
    tokens: ['database'],
    data: z.object({ options: z.object({ version: z.literal('2') }), type: z.literal('kv') }),
  }),
  read: defineCall({
    method: 'GET',
    path: `${DB_KEY_PATH}/data/:db_key_id`,
    summary: 'A granted key, its latest version or the one asked for (?version=N)',
    tag: 'tde-database',
    access: 'key:use',
    tokens: ['database'],
    query: z.object({ version: z.string().optional() }),
    data: DbKeyAnswer,
  }),
};
