import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DB_KEY_ID_MAX,
  DB_KEY_MOUNT_CHECK_PATH,
  DB_KEY_PATH,
  DB_TOKEN_HEADER,
  dbKeyCalls,
  formatMessage,
  ipAllowed,
  type CallDef,
  type MessageKey,
} from '@ksp/contracts';
import type { Db } from '../../platform/db/database.js';
import { isStorageUnavailable } from '../../platform/db/storage-health.js';
import type { TdeDbClientTable } from '../../platform/db/schema.js';
import { KspError } from '../../platform/errors.js';
import {
  authorizeCall,
  requestMeta,
  type Actor,
  type Gatekeeper,
  type RequestMeta,
} from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { hashDbToken } from './tde-database.service.js';
import { findClientByTokenHash, findGrant } from './tde-database.store.js';
import type { Reader, ReadTally } from './tde-database.tally.js';

/** The longest token looked up (KSP's are 49 characters): longer ones are refused unread. */
const TOKEN_MAX = 256;
const NUMBER = /^\d{1,10}$/;

/** A refusal of the key endpoint: its HTTP status and message, in Vault's `errors` shape. */
class Refusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 503,
    readonly key: MessageKey,
    readonly params: Record<string, string | number> = {},
    /** Counted in the audit here (not when the one check has recorded it already, or KSP is not ready). */
    readonly audited = true,
    /** Answered as Vault answers a missing version: 404 with no message (the plugin logs "Key not found"). */
    readonly bare = false,
  ) {
    super(key);
  }
}

/** The one permission a database client's token carries (its grants then name the keys). */
const DATABASE_PERMISSIONS: ReadonlySet<string> = new Set(['key:use']);

/**
 * The key endpoint (docs/tde-database.md#the-key-endpoint): the part of HashiCorp Vault's KV
 * version 2 interface that database encryption plugins read keys with, on KSP's own port and
 * certificate. `GET /v1/sys/mounts/tde/tune` (the plugin's check that the mount is KV 2) and
 * `GET /v1/tde/data/<key id>[?version=N]`; every other path under `/v1/tde` and `/v1/sys`
 * answers 405 or 404 with a message naming the two. Answers are Vault's JSON (`{"data":…}`,
 * refusals `{"errors":["…"]}`), not KSP's envelope, because the plugins parse Vault's.
 *
 * A request carries a database client's token in `X-Vault-Token`. The client it names (by the
 * token's SHA-256) makes an actor of token kind `database` with the one permission `key:use` in
 * the client's domain, and `authorizeCall` judges it against the call's declaration
 * (`dbKeyCalls`), as every REST call is judged. Then: the client is enabled, the address is in
 * its whitelist, the key id is granted to it, and the key is an AES-256 key in use. Everything
 * is read from the database on each request, so a change made on any node applies at the next
 * read. Reads and refusals are counted into audit records by `tally`.
 */
export function registerKeyEndpoint(deps: {
  app: FastifyInstance;
  db: Db;
  gate: Gatekeeper;
  keyVault: () => ModuleServices['keyVault'];
  tally: ReadTally;
}): void {
  const { app, db, gate, tally } = deps;

  async function clientOf(req: FastifyRequest): Promise<TdeDbClientTable> {
    const raw = req.headers[DB_TOKEN_HEADER];
    const token = typeof raw === 'string' ? raw.trim() : '';
    if (!token) throw new Refusal(403, 'dbKey.tokenMissing');
    if (token.length > TOKEN_MAX) throw new Refusal(403, 'dbKey.tokenInvalid');
    const client = await findClientByTokenHash(db, hashDbToken(token));
    if (!client) throw new Refusal(403, 'dbKey.tokenInvalid');
    return client;
  }

  const actorOf = (client: TdeDbClientTable): Actor => ({
    userId: client.id,
    username: client.name,
    domainId: client.domain_id,
    domainName: '',
    sessionId: client.id,
    permissions: DATABASE_PERMISSIONS,
    mustChangePassword: false,
    directory: null,
    kind: 'database',
    systemScope: false,
  });

  /** Who a request is from, the checks every call makes, and the audited refusal of the one check. */
  async function admit(
    req: FastifyRequest,
    call: CallDef,
    meta: RequestMeta,
    seen: { client: TdeDbClientTable | null },
  ): Promise<TdeDbClientTable> {
    const state = await gate.readiness();
    if (!state.ready) throw new Refusal(503, state.reason, state.params ?? {}, false);
    const client = await clientOf(req);
    // Every refusal from here on is recorded under the client (and its domain).
    seen.client = client;
    try {
      await authorizeCall(gate, call, actorOf(client), meta);
    } catch (err) {
      // authorizeCall has recorded the refusal itself (access.denied).
      if (err instanceof KspError) throw new Refusal(403, err.messageKey, {}, false);
      throw err;
    }
    if (client.enabled !== 1) throw new Refusal(403, 'dbKey.clientDisabled', { client: client.name });
    if (!ipAllowed(meta.ip, JSON.parse(client.ip_whitelist) as string[]))
      throw new Refusal(403, 'dbKey.addressRefused', { ip: meta.ip, client: client.name });
    return client;
  }

  function answerRefusal(reply: FastifyReply, meta: RequestMeta, refusal: Refusal) {
    const errors = refusal.bare ? [] : [formatMessage(refusal.key, meta.lang, refusal.params)];
    return reply.code(refusal.status).header('cache-control', 'no-store').send({ errors });
  }

  const readerOf = (client: TdeDbClientTable | null, ip: string): Reader => ({
    clientId: client?.id ?? null,
    clientName: client?.name ?? 'database',
    domainId: client?.domain_id ?? null,
    ip,
  });

  /** Runs a request; a refusal is answered in Vault's shape and counted. */
  async function serve(
    req: FastifyRequest,
    reply: FastifyReply,
    work: (
      meta: RequestMeta,
      seen: {
        client: TdeDbClientTable | null;
        dbKeyId: number | null;
        key: { id: string; name: string } | null;
      },
    ) => Promise<unknown>,
  ) {
    const meta = requestMeta(req);
    const seen = {
      client: null as TdeDbClientTable | null,
      dbKeyId: null as number | null,
      key: null as { id: string; name: string } | null,
    };
    try {
      const body = await work(meta, seen);
      return reply.header('cache-control', 'no-store').send(body);
    } catch (err) {
      // KSP not ready (sealed, not activated) or its database out of reach: the connection is
      // closed without an answer, as an unreachable server's would be. The plugin then serves
      // from its key cache (it does so on any transfer failure); an HTTP 503 it would take as a
      // refusal, and a running MariaDB stops at its next key lookup (docs/tde-database.md).
      if ((err instanceof Refusal && err.status === 503) || isStorageUnavailable(err)) {
        reply.hijack();
        reply.raw.destroy();
        return reply;
      }
      if (!(err instanceof Refusal)) throw err;
      if (err.audited)
        tally.add({
          result: 'failure',
          reader: readerOf(seen.client, meta.ip),
          reason: err.key,
          params: err.params,
          dbKeyId: seen.dbKeyId,
          keyId: seen.key?.id ?? null,
          keyName: seen.key?.name ?? '',
        });
      return answerRefusal(reply, meta, err);
    }
  }

  const parseNumber = (text: string | undefined, key: MessageKey): number => {
    if (text === undefined || !NUMBER.test(text)) throw new Refusal(400, key);
    const n = Number(text);
    if (n > DB_KEY_ID_MAX) throw new Refusal(400, key);
    return n;
  };

  const routeSchema = (call: CallDef, description: string) => ({
    summary: call.summary,
    description,
    tags: ['tde-database'],
  });

  app.route({
    method: 'GET',
    url: DB_KEY_MOUNT_CHECK_PATH,
    config: { access: dbKeyCalls.mountCheck.access },
    schema: routeSchema(
      dbKeyCalls.mountCheck,
      'Vault-shaped (docs/tde-database.md): header X-Vault-Token: a database client token. Answers {"type":"kv","options":{"version":"2"}}; a refusal answers 403 {"errors":["…"]}.',
    ),
    handler: (req, reply) =>
      serve(req, reply, async (meta, seen) => {
        await admit(req, dbKeyCalls.mountCheck, meta, seen);
        return { type: 'kv', description: 'KSP database keys', options: { version: '2' } };
      }),
  });

  app.route({
    method: 'GET',
    url: `${DB_KEY_PATH}/data/:db_key_id`,
    config: { access: dbKeyCalls.read.access },
    schema: routeSchema(
      dbKeyCalls.read,
      'Vault-shaped (docs/tde-database.md): header X-Vault-Token: a database client token; optional query version=N (0 or none: the latest). Answers {"data":{"data":{"data":"<64 hex digits>"},"metadata":{"version":N,…}}}. 400: a key id or version that is not a whole number from 1 to 4294967295; 403: a refused token, client, address, key id or key; 404 {"errors":[]}: no such version.',
    ),
    handler: (req, reply) =>
      serve(req, reply, async (meta, seen) => {
        const params = req.params as { db_key_id?: string };
        const query = req.query as { version?: string | string[] };
        const dbKeyId = parseNumber(params.db_key_id, 'dbKey.badKeyId');
        if (dbKeyId === 0) throw new Refusal(400, 'dbKey.badKeyId', {}, false);
        seen.dbKeyId = dbKeyId;
        const rawVersion = Array.isArray(query.version) ? '' : query.version;
        const asked = rawVersion === undefined ? 0 : parseNumber(rawVersion, 'dbKey.badVersion');
        const client = await admit(req, dbKeyCalls.read, meta, seen);
        const grant = await findGrant(db, client.id, dbKeyId);
        if (!grant) throw new Refusal(403, 'dbKey.notGranted', { db_key_id: dbKeyId, client: client.name });
        const found = await deps.keyVault().databaseKey(client.domain_id, grant.key_id, asked || null);
        if (!found.key)
          throw new Refusal(403, 'dbKey.keyState', {
            db_key_id: dbKeyId,
            name: grant.key_id,
            state: 'deleted',
          });
        const key = found.key;
        seen.key = { id: key.id, name: key.name };
        if (key.state !== 'active' || key.algorithm !== 'AES-256')
          throw new Refusal(403, 'dbKey.keyState', { db_key_id: dbKeyId, name: key.name, state: key.state });
        if (!found.version)
          throw new Refusal(404, 'dbKey.versionNotFound', { db_key_id: dbKeyId, version: asked }, true, true);
        const { material, number, created_at } = found.version;
        const hex = material.toString('hex');
        material.fill(0);
        tally.add({
          result: 'success',
          reader: { ...readerOf(client, meta.ip), clientId: client.id, domainId: client.domain_id },
          dbKeyId,
          keyId: key.id,
          keyName: key.name,
          version: number,
        });
        return {
          data: {
            data: { data: hex },
            metadata: { version: number, created_time: created_at, deletion_time: '', destroyed: false },
          },
        };
      }),
  });

  // Everything else under the two prefixes: a clear answer naming what is served, given before
  // any body is read (whatever was sent is answered the same way).
  const unsupported = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!;
    await answerRefusal(
      reply,
      requestMeta(req),
      new Refusal(req.method === 'GET' ? 404 : 405, 'dbKey.unsupported', {
        path: DB_KEY_PATH,
        check: DB_KEY_MOUNT_CHECK_PATH,
        method: req.method,
        url: path.slice(0, 200),
      }),
    );
    return reply;
  };
  for (const url of [DB_KEY_PATH, `${DB_KEY_PATH}/*`, '/v1/sys', '/v1/sys/*'])
    app.route({
      method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'],
      url,
      config: { access: 'public' },
      schema: { hide: true },
      onRequest: unsupported,
      handler: (_req, reply) => reply,
    });
}
