import { randomUUID } from 'node:crypto';
import type { api, Input, QueryInput, ServerAuthType } from '@ksp/contracts';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { SshServerTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { about, type ServerParts } from './ssh-server.scope.js';
import type { HostKey } from './ssh-server.ssh.js';
import {
  deleteServers,
  insertServer,
  listServers,
  serverOfCredential,
  updateServer,
  type ServerRecord,
} from './ssh-server.store.js';
import { nextRotation, serverView, type Charset } from './ssh-server.view.js';

/** The credential type each auth type logs in with. */
const credentialTypeFor: Record<ServerAuthType, string> = {
  password: 'password',
  'private-key': 'ssh-private-key',
};

const checkCharset = (c: Charset) => {
  if (!c.lower && !c.upper && !c.digits && !c.symbols) throw invalid('server.noClass');
};

/** A list of names as stored: each once, sorted. */
const nameList = (names: string[]) => JSON.stringify([...new Set(names)].sort());

/** A server's settings (README.md): list, detail, create, update, delete. */
export function createServerSettings(
  deps: ServerParts & {
    /** The licence's quota of SMS servers (modules/license), claimed in the creating transaction. */
    license?: (() => ModuleServices['license'] | undefined) | undefined;
  },
) {
  const { db, clock, audit, scope } = deps;

  async function checkCredential(
    actor: Actor,
    credentialId: string,
    auth: ServerAuthType,
    serverId?: string,
  ) {
    const cred = await deps.credentials().describe(actor, credentialId);
    if (!cred) throw invalid('server.credentialNotFound', { id: credentialId });
    const wanted = credentialTypeFor[auth];
    if (cred.type !== wanted)
      throw invalid('server.credentialType', { auth, type: wanted, actual: cred.type });
    // One server per credential: two servers rotating one password would overwrite each other.
    const other = await serverOfCredential(db, credentialId, serverId);
    if (other !== undefined)
      throw conflict('server.credentialInUse', { credential: cred.name, server: other });
    return cred;
  }

  /** Which unique rule a concurrent write broke: the credential already another server's, or the name. */
  async function taken(id: string, name: string, credentialId: string | null): Promise<KspError> {
    const other = credentialId ? await serverOfCredential(db, credentialId, id) : undefined;
    return other !== undefined
      ? conflict('server.credentialInUse', { credential: credentialId ?? '', server: other })
      : conflict('server.nameTaken', { name });
  }

  /** The host key a new server is pinned to: the one at its address, which must be `expected`. */
  async function pinFor(
    actor: Actor,
    meta: RequestMeta,
    body: { name: string; host: string; port: number },
    expected: string,
  ): Promise<HostKey> {
    const target = { id: null, name: body.name };
    const pinned = await deps.connections.hostKey(body.host, body.port).catch(async (err: unknown) => {
      throw await scope.failed(actor, meta, 'server.create', target, err);
    });
    if (pinned.fingerprint !== expected)
      throw await scope.failed(
        actor,
        meta,
        'server.create',
        target,
        stateForbids('server.fingerprintMismatch', { actual: pinned.fingerprint, expected }),
        'ERROR',
      );
    return pinned;
  }

  return {
    async list(actor: Actor, query: QueryInput<typeof api.sshServer.list>) {
      const { rows, total } = await listServers(db, actor.domainId, query.name, query);
      return { data: rows.map(serverView), total };
    },

    async detail(actor: Actor, id: string) {
      return serverView(await scope.find(actor, id));
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.sshServer.create>) {
      const cred = await checkCredential(actor, body.credential_id, body.auth_type);
      const charset: Charset = {
        lower: body.rotation_lower,
        upper: body.rotation_upper,
        digits: body.rotation_digits,
        symbols: body.rotation_symbols,
      };
      checkCharset(charset);
      const pinned = body.host_key_fingerprint
        ? await pinFor(actor, meta, body, body.host_key_fingerprint)
        : null;
      const now = clock();
      const row: SshServerTable = {
        id: randomUUID(),
        domain_id: actor.domainId,
        name: body.name,
        description: body.description,
        host: body.host,
        port: body.port,
        os: body.os,
        account: body.account,
        auth_type: body.auth_type,
        credential_id: cred.id,
        host_key_fingerprint: pinned?.fingerprint ?? null,
        host_key_type: pinned?.keyType ?? null,
        rotation_enabled: body.rotation_enabled ? 1 : 0,
        rotation_days: body.rotation_days,
        rotation_hour: body.rotation_hour,
        rotation_length: body.rotation_length,
        rotation_charset: JSON.stringify(charset),
        next_rotation_at: body.rotation_enabled
          ? nextRotation(now, body.rotation_days, body.rotation_hour)
          : null,
        last_rotation_at: null,
        last_rotation_result: null,
        rotating_since: null,
        terminal_users: nameList(body.terminal_users),
        terminal_roles: nameList(body.terminal_roles),
        created_by: actor.username,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      try {
        await db.transaction().execute(async (trx) => {
          await deps.license?.()?.claimOne(trx, 'sms_servers', 1);
          await insertServer(trx, row);
          await audit.byCaller(
            trx,
            actor,
            meta,
            about('server.create', row, {
              host: `${row.host}:${row.port}`,
              credential: cred.name,
              ...(row.host_key_fingerprint ? { fingerprint: row.host_key_fingerprint } : {}),
            }),
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw await taken(row.id, body.name, cred.id);
        if (err instanceof KspError)
          throw await scope.failed(actor, meta, 'server.create', { id: null, name: body.name }, err);
        throw err;
      }
      await deps.credentials().link(actor, cred.id, row.id);
      return serverView({ ...row, credential_name: cred.name });
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.sshServer.update>) {
      const row = await scope.find(actor, body.id);
      const auth = body.auth_type ?? (row.auth_type as ServerAuthType);
      const credentialId = body.credential_id ?? row.credential_id;
      if (body.auth_type !== undefined || body.credential_id !== undefined) {
        if (!credentialId) throw stateForbids('server.noCredential', { name: row.name });
        await checkCredential(actor, credentialId, auth, row.id);
      }
      const old = JSON.parse(row.rotation_charset) as Charset;
      const charset: Charset = {
        lower: body.rotation_lower ?? old.lower,
        upper: body.rotation_upper ?? old.upper,
        digits: body.rotation_digits ?? old.digits,
        symbols: body.rotation_symbols ?? old.symbols,
      };
      checkCharset(charset);
      const moved =
        (body.host !== undefined && body.host !== row.host) ||
        (body.port !== undefined && body.port !== row.port);
      const enabled = body.rotation_enabled ?? Boolean(row.rotation_enabled);
      const days = body.rotation_days ?? row.rotation_days;
      const hour = body.rotation_hour ?? row.rotation_hour;
      const scheduleChanged =
        enabled !== Boolean(row.rotation_enabled) || days !== row.rotation_days || hour !== row.rotation_hour;
      const now = clock();
      const changes: Partial<SshServerTable> = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.host !== undefined ? { host: body.host } : {}),
        ...(body.port !== undefined ? { port: body.port } : {}),
        ...(body.os !== undefined ? { os: body.os } : {}),
        ...(body.account !== undefined ? { account: body.account } : {}),
        ...(body.auth_type !== undefined ? { auth_type: body.auth_type } : {}),
        ...(body.credential_id !== undefined ? { credential_id: body.credential_id } : {}),
        // Another host or port is another machine until its key is confirmed.
        ...(moved ? { host_key_fingerprint: null, host_key_type: null } : {}),
        rotation_enabled: enabled ? 1 : 0,
        rotation_days: days,
        rotation_hour: hour,
        ...(body.rotation_length !== undefined ? { rotation_length: body.rotation_length } : {}),
        rotation_charset: JSON.stringify(charset),
        ...(scheduleChanged ? { next_rotation_at: enabled ? nextRotation(now, days, hour) : null } : {}),
        ...(body.terminal_users !== undefined ? { terminal_users: nameList(body.terminal_users) } : {}),
        ...(body.terminal_roles !== undefined ? { terminal_roles: nameList(body.terminal_roles) } : {}),
        updated_at: now.toISOString(),
      };
      const fields = Object.keys(body).filter((k) => k !== 'id');
      try {
        await db.transaction().execute(async (trx) => {
          await updateServer(trx, row.id, changes);
          await audit.byCaller(
            trx,
            actor,
            meta,
            about(
              'server.update',
              { id: row.id, name: changes.name ?? row.name },
              {
                fields: fields.join(','),
                ...(moved ? { unpinned: row.host_key_fingerprint ?? '' } : {}),
              },
            ),
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw await taken(row.id, body.name ?? row.name, credentialId);
        throw err;
      }
      if (body.credential_id !== undefined && body.credential_id !== row.credential_id) {
        if (row.credential_id) await deps.credentials().link(actor, row.credential_id, null);
        await deps.credentials().link(actor, body.credential_id, row.id);
      }
      return serverView(await scope.find(actor, row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: ServerRecord[] = [];
      for (const id of new Set(ids)) rows.push(await scope.find(actor, id));
      const deleted = await db.transaction().execute(async (trx) => {
        const count = await deleteServers(
          trx,
          rows.map((r) => r.id),
        );
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, about('server.delete', r, { host: `${r.host}:${r.port}` }));
        return count;
      });
      for (const r of rows) if (r.credential_id) await deps.credentials().link(actor, r.credential_id, null);
      return { deleted };
    },

    /** The server when it is of the caller's domain (4040 otherwise). */
    async visible(actor: Actor, id: string): Promise<{ id: string; name: string }> {
      const row = await scope.find(actor, id);
      return { id: row.id, name: row.name };
    },
  };
}
