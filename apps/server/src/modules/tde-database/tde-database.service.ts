import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  DB_KEY_MOUNT,
  DB_KEY_PATH,
  DB_KEYS_PER_CLIENT_MAX,
  DB_TOKEN_PREFIX,
  type api,
  type DbClientDetail,
  type DbClientRow,
  type Input,
  type QueryInput,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { TdeDbClientTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import * as store from './tde-database.store.js';

/** SHA-256 of a token: it is 256 random bits, so a fast hash is enough (migration 037). */
export const hashDbToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const newToken = () => `${DB_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
/** What the console shows of a token: its prefix and the first few characters after it. */
const hintOf = (token: string) => `${token.slice(0, DB_TOKEN_PREFIX.length + 6)}…`;

type ClientRow = TdeDbClientTable & { keys?: number | string | null };

export function viewClient(row: ClientRow, keys = Number(row.keys ?? 0)): DbClientRow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled === 1,
    ip_whitelist: JSON.parse(row.ip_whitelist) as string[],
    token_hint: row.token_hint,
    token_issued_at: row.token_issued_at,
    keys,
    last_read_at: row.last_read_at,
    last_read_ip: row.last_read_ip,
    created_at: row.created_at,
  };
}

/**
 * The console's calls on database clients (docs/tde-database.md): clients of a domain, their
 * tokens (shown once, kept as a hash) and the keys each may read under a numeric key id. Every
 * change is audited in its transaction (`tde-database.*`).
 */
export function createTdeDatabaseService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  keyVault: () => ModuleServices['keyVault'];
  tls: { certificatePem: () => string } | null;
}) {
  const { db, clock, audit } = deps;

  async function find(trx: Executor, actor: Actor, id: string) {
    const row = await store.findClient(trx, actor.domainId, id);
    if (!row) throw notFound('tdeDatabase.notFound', { id });
    return row;
  }

  async function detailOf(trx: Executor, row: TdeDbClientTable): Promise<DbClientDetail> {
    const grants = await store.grantsOf(trx, row.id);
    return {
      ...viewClient(row, grants.length),
      grants: grants.map((g) => ({
        db_key_id: Number(g.db_key_id),
        key_id: g.key_id,
        key_name: g.key_name ?? '',
        // A grant whose key was deleted stays until removed; reads of it are refused.
        key_state: g.key_state ?? 'deleted',
        current_version: g.current_version ?? 0,
        reads: Number(g.reads),
        last_read_at: g.last_read_at,
        last_version: g.last_version,
        granted_at: g.granted_at,
      })),
    };
  }

  /** Runs a change in a transaction with its record (`tde-database.<action>`, target the client). */
  function change<T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    work: (trx: Executor) => Promise<T>,
    details: Record<string, string | number | boolean | null> = {},
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const result = await work(trx);
      await audit.byCaller(trx, actor, meta, { action: `tde-database.${action}`, target, details });
      return result;
    });
  }

  function issue(trx: Executor, id: string) {
    const token = newToken();
    const now = clock().toISOString();
    return {
      token,
      apply: () =>
        store.updateClient(trx, id, {
          token_hash: hashDbToken(token),
          token_hint: hintOf(token),
          token_issued_at: now,
          updated_at: now,
        }),
    };
  }

  return {
    endpoint() {
      return {
        path: DB_KEY_PATH,
        mount: DB_KEY_MOUNT,
        tls: deps.tls !== null,
        server_certificate_pem: deps.tls?.certificatePem() ?? '',
      };
    },

    async list(actor: Actor, query: QueryInput<typeof api.tdeDatabase.list>) {
      const { rows, total } = await store.listClients(db, actor.domainId, query, query);
      return { data: rows.map((r) => viewClient(r)), total };
    },

    async detail(actor: Actor, id: string) {
      return detailOf(db, await find(db, actor, id));
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdeDatabase.create>) {
      const now = clock().toISOString();
      const row: TdeDbClientTable = {
        id: randomUUID(),
        domain_id: actor.domainId,
        name: body.name,
        description: body.description,
        enabled: 1,
        ip_whitelist: JSON.stringify(body.ip_whitelist),
        token_hash: null,
        token_hint: null,
        token_issued_at: null,
        last_read_at: null,
        last_read_ip: '',
        created_at: now,
        updated_at: now,
      };
      return change(actor, meta, 'create', row.name, async (trx) => {
        if (await store.clientNameTaken(trx, actor.domainId, row.name))
          throw conflict('tdeDatabase.nameTaken', { name: row.name });
        await store.insertClient(trx, row);
        const issued = issue(trx, row.id);
        await issued.apply();
        return {
          client: viewClient((await store.findClient(trx, actor.domainId, row.id))!, 0),
          token: issued.token,
        };
      });
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdeDatabase.update>) {
      if (body.description === undefined && body.ip_whitelist === undefined && body.enabled === undefined)
        throw invalid('tdeDatabase.nothingToChange');
      const row = await find(db, actor, body.id);
      const action =
        body.enabled === undefined || (body.enabled ? 1 : 0) === row.enabled
          ? 'update'
          : body.enabled
            ? 'enable'
            : 'disable';
      return change(
        actor,
        meta,
        action,
        row.name,
        async (trx) => {
          await store.updateClient(trx, row.id, {
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.ip_whitelist !== undefined ? { ip_whitelist: JSON.stringify(body.ip_whitelist) } : {}),
            ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
            updated_at: clock().toISOString(),
          });
          return viewClient(await find(trx, actor, row.id), await store.grantCount(trx, row.id));
        },
        body.ip_whitelist !== undefined ? { ip_whitelist: body.ip_whitelist.join(' ') } : {},
      );
    },

    async regenerateToken(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(db, actor, id);
      return change(actor, meta, 'token-regenerate', row.name, async (trx) => {
        const issued = issue(trx, row.id);
        await issued.apply();
        return {
          client: viewClient(await find(trx, actor, row.id), await store.grantCount(trx, row.id)),
          token: issued.token,
        };
      });
    },

    async revokeToken(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(db, actor, id);
      return change(actor, meta, 'token-revoke', row.name, async (trx) => {
        await store.updateClient(trx, row.id, {
          token_hash: null,
          token_hint: null,
          token_issued_at: null,
          updated_at: clock().toISOString(),
        });
        return viewClient(await find(trx, actor, row.id), await store.grantCount(trx, row.id));
      });
    },

    async grant(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdeDatabase.grant>) {
      const row = await find(db, actor, body.id);
      const { key } = await deps.keyVault().databaseKey(actor.domainId, body.key_id, 0);
      if (!key) throw notFound('tdeDatabase.keyNotFound', { id: body.key_id });
      if (key.algorithm !== 'AES-256')
        throw invalid('tdeDatabase.keyNotAes256', { name: key.name, algorithm: key.algorithm });
      if (key.state !== 'active')
        throw stateForbids('tdeDatabase.keyNotUsable', { name: key.name, state: key.state });
      return change(
        actor,
        meta,
        'grant',
        row.name,
        async (trx) => {
          const existing = await store.findGrant(trx, row.id, body.db_key_id);
          if (!existing && (await store.grantCount(trx, row.id)) >= DB_KEYS_PER_CLIENT_MAX)
            throw conflict('tdeDatabase.tooManyKeys', { max: DB_KEYS_PER_CLIENT_MAX });
          await store.upsertGrant(trx, {
            client_id: row.id,
            db_key_id: body.db_key_id,
            domain_id: actor.domainId,
            key_id: key.id,
            reads: 0,
            last_read_at: null,
            last_version: null,
            granted_at: clock().toISOString(),
          });
          return detailOf(trx, row);
        },
        { db_key_id: body.db_key_id, key_id: key.id, key_name: key.name },
      );
    },

    async ungrant(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdeDatabase.ungrant>) {
      const row = await find(db, actor, body.id);
      return change(
        actor,
        meta,
        'ungrant',
        row.name,
        async (trx) => {
          if (!(await store.deleteGrant(trx, row.id, body.db_key_id)))
            throw notFound('tdeDatabase.grantNotFound', { db_key_id: body.db_key_id });
          return detailOf(trx, row);
        },
        { db_key_id: body.db_key_id },
      );
    },

    async remove(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(db, actor, id);
      return change(actor, meta, 'delete', row.name, async (trx) => ({
        deleted: await store.deleteClient(trx, row.id),
      }));
    },

    keyOptions: (actor: Actor, name: string | undefined) => store.keyOptions(db, actor.domainId, name),

    async keyReaders(actor: Actor, keyId: string) {
      const rows = await store.readersOf(db, actor.domainId, keyId);
      return rows.map((r) => ({
        client_id: r.client_id,
        client_name: r.client_name,
        db_key_id: Number(r.db_key_id),
        reads: Number(r.reads),
        last_read_at: r.last_read_at,
        last_version: r.last_version,
      }));
    },
  };
}

export type TdeDatabaseService = ReturnType<typeof createTdeDatabaseService>;
