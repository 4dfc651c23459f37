import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Client } from 'ssh2';
import type {
  api,
  Input,
  LogSeverity,
  QueryInput,
  ServerAuthType,
  ServerRotation,
  ServerRow,
} from '@ksp/contracts';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { SshServerRotationTable, SshServerTable } from '../../platform/db/schema.js';
import { conflict, forbidden, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { JobRun } from '../../platform/jobs/jobs.js';
import type { ModuleServices } from '../../platform/module.js';
import { localized, storedError } from '../../platform/stored-message.js';
import { exec, fetchHostKey, login, SshError, type HostKey } from './ssh-server.ssh.js';
import { allowedAddress, createProbeLimiter, padTo, type SshTargetPolicy } from './ssh-server.targets.js';

/** A rotation still marked running after this long was left by a node that stopped: another may start. */
const STALE_ROTATION_MS = 10 * 60 * 1000;
/** The credential type each auth type logs in with. */
const credentialTypeFor: Record<ServerAuthType, string> = {
  password: 'password',
  'private-key': 'ssh-private-key',
};

interface Charset {
  lower: boolean;
  upper: boolean;
  digits: boolean;
  symbols: boolean;
}

type Row = SshServerTable & { credential_name: string | null };

/** The ssh functions, replaceable in tests of this module only. */
export interface SshClient {
  fetchHostKey: typeof fetchHostKey;
  login: typeof login;
  exec: typeof exec;
}

/** The first scheduled rotation `days` after `from`, at `hour` (UTC). */
export function nextRotation(from: Date, days: number, hour: number): string {
  return new Date(
    Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + days, hour),
  ).toISOString();
}

/** The command that sets the account's new password: chpasswd as root, passwd for the account itself. */
function passwordChange(account: string, oldPassword: string, newPassword: string) {
  return account === 'root'
    ? { command: 'chpasswd', input: `root:${newPassword}\n` }
    : { command: 'LC_ALL=C passwd', input: `${oldPassword}\n${newPassword}\n${newPassword}\n` };
}

/**
 * Servers of the SMS sub-console (docs/modules.md#ssh-servers): settings, the pinned host key, the
 * connection test and the password rotation. Credentials are the credential module's,
 * reached through `ModuleServices['credentials']`; every query is limited to the caller's
 * domain (another domain's server is "not found").
 */
export function createSshServerService(deps: {
  db: Db;
  clock: Clock;
  credentials: () => ModuleServices['credentials'];
  /** The licence's quota of SMS servers (modules/license), claimed in the creating transaction. */
  license?: () => ModuleServices['license'] | undefined;
  ssh?: SshClient;
  /** Where connections may go (KSP_SSH_ALLOWED_NETWORKS) and their timeout. */
  policy?: SshTargetPolicy;
}) {
  const { db, clock } = deps;
  const ssh: SshClient = deps.ssh ?? { fetchHostKey, login, exec };
  const policy: SshTargetPolicy = deps.policy ?? { networks: 'any', timeoutMs: 10_000 };
  const probeLimit = createProbeLimiter(() => clock().getTime());

  const view = (row: Row): ServerRow => {
    const charset = JSON.parse(row.rotation_charset) as Charset;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      host: row.host,
      port: row.port,
      os: row.os as ServerRow['os'],
      account: row.account,
      auth_type: row.auth_type as ServerAuthType,
      credential_id: row.credential_id,
      credential_name: row.credential_name,
      host_key_fingerprint: row.host_key_fingerprint,
      host_key_type: row.host_key_type,
      rotation_enabled: Boolean(row.rotation_enabled),
      rotation_days: row.rotation_days,
      rotation_hour: row.rotation_hour,
      rotation_length: row.rotation_length,
      rotation_lower: charset.lower,
      rotation_upper: charset.upper,
      rotation_digits: charset.digits,
      rotation_symbols: charset.symbols,
      next_rotation_at: row.next_rotation_at,
      last_rotation_at: row.last_rotation_at,
      last_rotation_result: row.last_rotation_result as ServerRow['last_rotation_result'],
      terminal_users: JSON.parse(row.terminal_users) as string[],
      terminal_roles: JSON.parse(row.terminal_roles) as string[],
      created_by: row.created_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  };

  const rotationView = (r: SshServerRotationTable, lang: RequestMeta['lang']): ServerRotation => ({
    id: r.id,
    at: r.at,
    trigger: r.trigger as ServerRotation['trigger'],
    by: r.by,
    result: r.result as ServerRotation['result'],
    version: r.version,
    error: localized(r.error, lang),
  });

  const selectRows = (q: Executor) =>
    q
      .selectFrom('ssh_server')
      .leftJoin('credential', 'credential.id', 'ssh_server.credential_id')
      .selectAll('ssh_server')
      .select('credential.name as credential_name');

  async function find(actor: Actor, id: string): Promise<Row> {
    const row = await selectRows(db)
      .where('ssh_server.id', '=', id)
      .where('ssh_server.domain_id', '=', actor.domainId)
      .executeTakeFirst();
    if (!row) throw notFound('server.notFound', { id });
    return row;
  }

  const audit = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    row: { id: string | null; name: string },
    result: 'success' | 'failure' = 'success',
    details?: Record<string, string | number>,
    severity?: LogSeverity,
  ) =>
    writeAudit(
      trx,
      {
        who: subjectOf(actor),
        action,
        target: row.name,
        result,
        ip: meta.ip,
        objectId: row.id,
        ...(details ? { details } : {}),
        ...(severity ? { severity } : {}),
      },
      clock(),
    );

  /** Audits a refusal or failure (its message key as the reason), then answers the error to throw. */
  async function failed(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    row: { id: string | null; name: string },
    err: unknown,
    severity?: LogSeverity,
  ): Promise<unknown> {
    const reason = err instanceof KspError ? err.messageKey : 'internal error';
    await audit(db, actor, meta, action, row, 'failure', { reason }, severity);
    return err;
  }

  /** An SSH failure as the caller reads it, naming the host, the account and both fingerprints. */
  function sshError(row: Row, err: unknown): unknown {
    if (!(err instanceof SshError)) return err;
    const f = err.failure;
    if (f.kind === 'host-key-changed')
      return stateForbids('server.hostKeyChanged', {
        name: row.name,
        host: `${row.host}:${row.port}`,
        actual: f.actual.fingerprint,
        expected: row.host_key_fingerprint ?? '',
      });
    if (f.kind === 'auth-refused')
      return stateForbids('server.authRefused', {
        account: row.account,
        credential: row.credential_name ?? '',
      });
    return stateForbids('server.unreachable', { host: row.host, port: row.port, reason: f.reason });
  }

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
    const other = await db
      .selectFrom('ssh_server')
      .select('name')
      .where('credential_id', '=', credentialId)
      .$if(serverId !== undefined, (q) => q.where('id', '!=', serverId ?? ''))
      .executeTakeFirst();
    if (other) throw conflict('server.credentialInUse', { credential: cred.name, server: other.name });
    return cred;
  }

  /** Which unique rule a concurrent write broke: the credential already another server's, or the name. */
  async function taken(id: string, name: string, credentialId: string | null): Promise<KspError> {
    const other = credentialId
      ? await db
          .selectFrom('ssh_server')
          .select('name')
          .where('credential_id', '=', credentialId)
          .where('id', '!=', id)
          .executeTakeFirst()
      : undefined;
    return other
      ? conflict('server.credentialInUse', { credential: credentialId ?? '', server: other.name })
      : conflict('server.nameTaken', { name });
  }

  const checkCharset = (c: Charset) => {
    if (!c.lower && !c.upper && !c.digits && !c.symbols) throw invalid('server.noClass');
  };

  /**
   * The host key at `host:port`, within the allowed networks. Whatever keeps an SSH server from
   * answering (closed, filtered, another service, a name that does not resolve) answers one
   * message, `server.noSshServer`, once the connection timeout has passed: the answer tells
   * nothing about the port beyond "no SSH here".
   */
  async function hostKey(host: string, port: number): Promise<HostKey> {
    const address = await allowedAddress(host, policy);
    const started = Date.now();
    try {
      if (!address) throw new SshError({ kind: 'unreachable', reason: 'no address' });
      return await ssh.fetchHostKey(address, port, policy.timeoutMs);
    } catch (err) {
      if (!(err instanceof SshError)) throw err;
      await padTo(started, policy.timeoutMs);
      throw stateForbids('server.noSshServer', { host, port });
    }
  }

  /** Logs in with the current credential (or `password`), the pinned host key checked. */
  async function connect(actor: Actor, row: Row, password?: string): Promise<Client> {
    if (!row.credential_id) throw stateForbids('server.noCredential', { name: row.name });
    if (!row.host_key_fingerprint) throw stateForbids('server.notPinned', { name: row.name });
    let secret = password;
    if (secret === undefined) secret = (await deps.credentials().openCurrent(actor, row.credential_id)).value;
    const address = await allowedAddress(row.host, policy);
    if (!address)
      throw stateForbids('server.unreachable', { host: row.host, port: row.port, reason: 'ENOTFOUND' });
    try {
      return await ssh.login({
        host: address,
        port: row.port,
        username: row.account,
        pinned: row.host_key_fingerprint,
        ...(row.auth_type === 'private-key' && password === undefined
          ? { privateKey: secret }
          : { password: secret }),
      });
    } catch (err) {
      throw sshError(row, err);
    }
  }

  /**
   * One rotation: log in with the current password, set a new one, check a fresh login with
   * it, then commit it as the credential's next version. Any failure leaves the current
   * version as it was and is recorded in the history; the error is answered.
   */
  async function rotate(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    trigger: 'manual' | 'schedule',
  ): Promise<ServerRotation> {
    const row = await find(actor, id);
    if (row.auth_type !== 'password')
      throw await failed(
        actor,
        meta,
        'server.rotate',
        row,
        stateForbids('server.rotationNeedsPassword', { name: row.name }),
      );
    const started = clock();
    const claimed = await db
      .updateTable('ssh_server')
      .set({ rotating_since: started.toISOString() })
      .where('id', '=', row.id)
      .where((eb) =>
        eb.or([
          eb('rotating_since', 'is', null),
          eb('rotating_since', '<', new Date(started.getTime() - STALE_ROTATION_MS).toISOString()),
        ]),
      )
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1)
      throw await failed(
        actor,
        meta,
        'server.rotate',
        row,
        conflict('server.rotationBusy', { name: row.name }),
      );

    const record: SshServerRotationTable = {
      // Time-ordered: the history's order among rotations of the same instant.
      id: uuidv7(),
      server_id: row.id,
      at: started.toISOString(),
      trigger,
      by: actor.username,
      result: 'failure',
      version: null,
      error: null,
    };
    let failure: Error | null = null;
    try {
      if (!row.credential_id) throw stateForbids('server.noCredential', { name: row.name });
      const credentials = deps.credentials();
      const current = await credentials.openCurrent(actor, row.credential_id);
      const charset = JSON.parse(row.rotation_charset) as Charset;
      const { password: fresh } = credentials.generatePassword({ length: row.rotation_length, ...charset });
      const change = passwordChange(row.account, current.value, fresh);
      const credentialId = row.credential_id;
      const client = await connect(actor, row, current.value);
      try {
        const result = await ssh.exec(client, change.command, change.input).catch((err: unknown) => {
          throw sshError(row, err);
        });
        if (result.status !== 0) {
          // The output never holds the passwords (passwd does not echo; scrubbed all the same).
          const output = `${result.stderr} ${result.stdout}`
            .split(current.value)
            .join('***')
            .split(fresh)
            .join('***')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 300);
          throw stateForbids('server.commandFailed', {
            command: change.command,
            status: result.status ?? -1,
            output,
          });
        }
        try {
          try {
            const check = await connect(actor, row, fresh);
            check.end();
          } catch (err) {
            const reason = err instanceof KspError ? storedError(err) : String(err);
            throw stateForbids('server.verifyFailed', { reason });
          }
          record.version = await credentials.addRotatedVersion(
            actor,
            meta,
            credentialId,
            current.version,
            fresh,
            {
              server: row.name,
              trigger,
            },
          );
        } catch (err) {
          // The server has the new password but the credential does not: put the old one back
          // through the session still open, so that the current version logs in again.
          const back = passwordChange(row.account, fresh, current.value);
          const restored = await ssh.exec(client, back.command, back.input).then(
            (r) => r.status === 0,
            () => false,
          );
          if (restored) throw err;
          // The old password may still be the server's (the change did not take): nothing to keep then.
          const oldWorks = await connect(actor, row, current.value).then(
            (c) => {
              c.end();
              return true;
            },
            () => false,
          );
          if (oldWorks) throw err;
          // Neither: keep the password the server now has rather than lose it.
          const latest = await credentials.describe(actor, credentialId);
          record.version = latest
            ? await credentials
                .addRotatedVersion(actor, meta, credentialId, latest.current_version, fresh, {
                  server: row.name,
                  trigger,
                  rescued: 'yes',
                })
                .catch(() => null)
            : null;
          throw stateForbids('server.restoreFailed', {
            reason: storedError(err),
            version: record.version ?? '-',
          });
        }
      } finally {
        client.end();
      }
      record.result = 'success';
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
      record.error = storedError(err);
    }
    const now = clock();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('ssh_server_rotation').values(record).execute();
      await trx
        .updateTable('ssh_server')
        .set({
          rotating_since: null,
          last_rotation_at: record.at,
          last_rotation_result: record.result,
          next_rotation_at: row.rotation_enabled
            ? nextRotation(now, record.result === 'success' ? row.rotation_days : 1, row.rotation_hour)
            : null,
        })
        .where('id', '=', row.id)
        .execute();
      await audit(
        trx,
        actor,
        meta,
        'server.rotate',
        row,
        record.result === 'success' ? 'success' : 'failure',
        {
          trigger,
          ...(record.version !== null ? { version: record.version } : {}),
          ...(failure instanceof KspError
            ? { reason: failure.messageKey }
            : failure
              ? { reason: 'internal error' }
              : {}),
        },
        // A failed rotation is an ERROR record: an alarm rule on `server.rotate` failures raises it.
        failure ? 'ERROR' : undefined,
      );
    });
    if (failure) throw failure;
    return rotationView(record, meta.lang);
  }

  return {
    async list(actor: Actor, query: QueryInput<typeof api.sshServer.list>) {
      let q = selectRows(db).where('ssh_server.domain_id', '=', actor.domainId);
      if (query.name) {
        const like = `%${escapeLike(query.name)}%`;
        q = q.where((eb) =>
          eb.or([eb('ssh_server.name', 'like', like), eb('ssh_server.host', 'like', like)]),
        );
      }
      const total = await db
        .selectFrom('ssh_server')
        .where('domain_id', '=', actor.domainId)
        .$if(Boolean(query.name), (qb) => {
          const like = `%${escapeLike(query.name ?? '')}%`;
          return qb.where((eb) => eb.or([eb('name', 'like', like), eb('host', 'like', like)]));
        })
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst();
      const rows = await q
        .orderBy('ssh_server.name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map(view), total: Number(total?.n ?? 0) };
    },

    async detail(actor: Actor, id: string) {
      return view(await find(actor, id));
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
      let pinned: HostKey | null = null;
      if (body.host_key_fingerprint) {
        const target = { id: null, name: body.name };
        pinned = await hostKey(body.host, body.port).catch(async (err: unknown) => {
          throw await failed(actor, meta, 'server.create', target, err);
        });
        if (pinned.fingerprint !== body.host_key_fingerprint)
          throw await failed(
            actor,
            meta,
            'server.create',
            target,
            stateForbids('server.fingerprintMismatch', {
              actual: pinned.fingerprint,
              expected: body.host_key_fingerprint,
            }),
            'ERROR',
          );
      }
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
        terminal_users: JSON.stringify([...new Set(body.terminal_users)].sort()),
        terminal_roles: JSON.stringify([...new Set(body.terminal_roles)].sort()),
        created_by: actor.username,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      try {
        await db.transaction().execute(async (trx) => {
          await deps.license?.()?.claimOne(trx, 'sms_servers', 1);
          await trx.insertInto('ssh_server').values(row).execute();
          await audit(trx, actor, meta, 'server.create', row, 'success', {
            host: `${row.host}:${row.port}`,
            credential: cred.name,
            ...(row.host_key_fingerprint ? { fingerprint: row.host_key_fingerprint } : {}),
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw await taken(row.id, body.name, cred.id);
        if (err instanceof KspError)
          throw await failed(actor, meta, 'server.create', { id: null, name: body.name }, err);
        throw err;
      }
      await deps.credentials().link(actor, cred.id, row.id);
      return view({ ...row, credential_name: cred.name });
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.sshServer.update>) {
      const row = await find(actor, body.id);
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
        ...(body.terminal_users !== undefined
          ? { terminal_users: JSON.stringify([...new Set(body.terminal_users)].sort()) }
          : {}),
        ...(body.terminal_roles !== undefined
          ? { terminal_roles: JSON.stringify([...new Set(body.terminal_roles)].sort()) }
          : {}),
        updated_at: now.toISOString(),
      };
      const fields = Object.keys(body).filter((k) => k !== 'id');
      try {
        await db.transaction().execute(async (trx) => {
          await trx.updateTable('ssh_server').set(changes).where('id', '=', row.id).execute();
          await audit(
            trx,
            actor,
            meta,
            'server.update',
            { id: row.id, name: changes.name ?? row.name },
            'success',
            {
              fields: fields.join(','),
              ...(moved ? { unpinned: row.host_key_fingerprint ?? '' } : {}),
            },
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
      return view(await find(actor, row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: Row[] = [];
      for (const id of new Set(ids)) rows.push(await find(actor, id));
      const deleted = await db.transaction().execute(async (trx) => {
        const list = rows.map((r) => r.id);
        await trx.deleteFrom('ssh_server_rotation').where('server_id', 'in', list).execute();
        const result = await trx.deleteFrom('ssh_server').where('id', 'in', list).executeTakeFirst();
        for (const r of rows)
          await audit(trx, actor, meta, 'server.delete', r, 'success', { host: `${r.host}:${r.port}` });
        return Number(result.numDeletedRows);
      });
      for (const r of rows) if (r.credential_id) await deps.credentials().link(actor, r.credential_id, null);
      return { deleted };
    },

    async fetchFingerprint(
      actor: Actor,
      meta: RequestMeta,
      body: Input<typeof api.sshServer.fetchFingerprint>,
    ) {
      // Counted before anything is awaited: parallel calls cannot all pass.
      let limited: KspError | null = null;
      try {
        probeLimit(actor.userId);
      } catch (err) {
        if (!(err instanceof KspError)) throw err;
        limited = err;
      }
      const row = body.id !== undefined ? await find(actor, body.id) : null;
      const host = row?.host ?? body.host ?? '';
      const port = row?.port ?? body.port;
      const target = row ?? { id: null, name: `${host}:${port}` };
      let key: HostKey;
      try {
        if (limited) throw limited;
        key = await hostKey(host, port);
      } catch (err) {
        throw await failed(actor, meta, 'server.fetch-fingerprint', target, err);
      }
      await audit(db, actor, meta, 'server.fetch-fingerprint', target, 'success', {
        host: `${host}:${port}`,
        fingerprint: key.fingerprint,
      });
      return {
        fingerprint: key.fingerprint,
        key_type: key.keyType,
        pinned: row?.host_key_fingerprint ?? null,
      };
    },

    async confirmFingerprint(actor: Actor, meta: RequestMeta, id: string, fingerprint: string) {
      let limited: KspError | null = null;
      try {
        probeLimit(actor.userId);
      } catch (err) {
        if (!(err instanceof KspError)) throw err;
        limited = err;
      }
      const row = await find(actor, id);
      let key: HostKey;
      try {
        if (limited) throw limited;
        key = await hostKey(row.host, row.port);
        if (key.fingerprint !== fingerprint)
          throw stateForbids('server.fingerprintMismatch', {
            actual: key.fingerprint,
            expected: fingerprint,
          });
      } catch (err) {
        throw await failed(actor, meta, 'server.confirm-fingerprint', row, err, 'ERROR');
      }
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('ssh_server')
          .set({
            host_key_fingerprint: key.fingerprint,
            host_key_type: key.keyType,
            updated_at: clock().toISOString(),
          })
          .where('id', '=', row.id)
          .execute();
        await audit(trx, actor, meta, 'server.confirm-fingerprint', row, 'success', {
          fingerprint: key.fingerprint,
          previous: row.host_key_fingerprint ?? '',
        });
      });
      return view(await find(actor, row.id));
    },

    /** Connection test: log in, run `id`, answer what it printed; audited either way. */
    async test(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(actor, id);
      const started = Date.now();
      let output: string;
      try {
        const client = await connect(actor, row);
        try {
          const result = await ssh.exec(client, 'id').catch((err: unknown) => {
            throw sshError(row, err);
          });
          if (result.status !== 0)
            throw stateForbids('server.commandFailed', {
              command: 'id',
              status: result.status ?? -1,
              output: result.stderr.trim().slice(0, 300),
            });
          output = result.stdout.trim().slice(0, 1000);
        } finally {
          client.end();
        }
      } catch (err) {
        const hostKeyChanged = err instanceof KspError && err.messageKey === 'server.hostKeyChanged';
        throw await failed(actor, meta, 'server.test', row, err, hostKeyChanged ? 'ERROR' : undefined);
      }
      await audit(db, actor, meta, 'server.test', row, 'success');
      return { output, elapsed_ms: Date.now() - started };
    },

    rotate: (actor: Actor, meta: RequestMeta, id: string) => rotate(actor, meta, id, 'manual'),

    /**
     * The server a terminal may be opened on by this caller: of the caller's domain (another
     * domain's is "not found"), and the caller's user name in its terminal users or one of the
     * caller's roles in its terminal roles; pinned and with a credential. Refusals are audited.
     */
    async terminalTarget(actor: Actor, meta: RequestMeta, id: string): Promise<{ id: string; name: string }> {
      const row = await find(actor, id);
      const users = JSON.parse(row.terminal_users) as string[];
      const roles = JSON.parse(row.terminal_roles) as string[];
      let allowed = users.includes(actor.username);
      if (!allowed && roles.length > 0) {
        const mine = await db
          .selectFrom('user_role')
          .select('role_id')
          .where('user_id', '=', actor.userId)
          .where('role_id', 'in', roles)
          .executeTakeFirst();
        allowed = mine !== undefined;
      }
      try {
        if (!allowed) throw forbidden('server.terminalNotAllowed', { name: row.name });
        if (!row.credential_id) throw stateForbids('server.noCredential', { name: row.name });
        if (!row.host_key_fingerprint) throw stateForbids('server.notPinned', { name: row.name });
      } catch (err) {
        throw await failed(actor, meta, 'server.terminal.refused', row, err);
      }
      return { id: row.id, name: row.name };
    },

    /** Logs in for a terminal (stored credential, pinned host key); a refusal is audited. */
    async terminalConnect(actor: Actor, meta: RequestMeta, id: string): Promise<Client> {
      const row = await find(actor, id);
      try {
        return await connect(actor, row);
      } catch (err) {
        const hostKeyChanged = err instanceof KspError && err.messageKey === 'server.hostKeyChanged';
        throw await failed(
          actor,
          meta,
          'server.terminal.refused',
          row,
          err,
          hostKeyChanged ? 'ERROR' : undefined,
        );
      }
    },

    /** The server when it is of the caller's domain (4040 otherwise). */
    async visible(actor: Actor, id: string): Promise<{ id: string; name: string }> {
      const row = await find(actor, id);
      return { id: row.id, name: row.name };
    },

    /** Audits a terminal refused at the WebSocket, with the refusal's message key as the reason. */
    terminalRefused: (
      actor: Actor,
      meta: RequestMeta,
      server: { id: string; name: string },
      reason: string,
    ) => audit(db, actor, meta, 'server.terminal.refused', server, 'failure', { reason }),

    /** Audits a terminal session's start or end, or the replay of its recording. */
    terminalAudit: (
      actor: Actor,
      meta: RequestMeta,
      action: 'server.terminal.start' | 'server.terminal.end' | 'server.session.replay',
      server: { id: string; name: string },
      details: Record<string, string | number>,
    ) => audit(db, actor, meta, action, server, 'success', details),

    async rotations(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.sshServer.rotations>) {
      const row = await find(actor, query.id);
      const total = await db
        .selectFrom('ssh_server_rotation')
        .where('server_id', '=', row.id)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst();
      const rows = await db
        .selectFrom('ssh_server_rotation')
        .selectAll()
        .where('server_id', '=', row.id)
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map((r) => rotationView(r, meta.lang)), total: Number(total?.n ?? 0) };
    },

    /** The scheduled round (one node of the cluster, by the job's lease): every due server, each in its domain. */
    async runScheduled(run: JobRun<unknown>): Promise<number> {
      const due = await db
        .selectFrom('ssh_server')
        .innerJoin('domain', 'domain.id', 'ssh_server.domain_id')
        .select(['ssh_server.id', 'ssh_server.domain_id', 'domain.name as domain_name'])
        .where('ssh_server.rotation_enabled', '=', 1)
        .where('ssh_server.next_rotation_at', '<=', clock().toISOString())
        .orderBy('ssh_server.next_rotation_at')
        .execute();
      let done = 0;
      for (const server of due) {
        run.signal.throwIfAborted();
        const actor: Actor = {
          userId: '',
          username: 'scheduler',
          domainId: server.domain_id,
          domainName: server.domain_name,
          sessionId: '',
          permissions: new Set(),
          mustChangePassword: false,
          directory: null,
          kind: 'session',
          systemScope: false,
        };
        // A failure is in the history and the audit (ERROR); the round goes on with the next server.
        await rotate(actor, { ip: '', lang: 'en', userAgent: '' }, server.id, 'schedule').then(
          () => done++,
          () => undefined,
        );
      }
      return done;
    },
  };
}

export type SshServerService = ReturnType<typeof createSshServerService>;
