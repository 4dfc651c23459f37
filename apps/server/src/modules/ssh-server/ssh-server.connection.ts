import type { Client } from 'ssh2';
import { stateForbids } from '../../platform/errors.js';
import type { Actor } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { exec, fetchHostKey, login, SshError, type HostKey } from './ssh-server.ssh.js';
import type { ServerRecord } from './ssh-server.store.js';
import { allowedAddress, padTo, type SshTargetPolicy } from './ssh-server.targets.js';

/** The ssh functions, replaceable in tests of this module only. */
export interface SshClient {
  fetchHostKey: typeof fetchHostKey;
  login: typeof login;
  exec: typeof exec;
}

/** An SSH failure as the caller reads it, naming the host, the account and both fingerprints. */
export function sshError(row: ServerRecord, err: unknown): unknown {
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

/** Reaching servers over SSH within the allowed networks: their host key, a login, a command. */
export function createConnections(deps: {
  credentials: () => ModuleServices['credentials'];
  ssh?: SshClient | undefined;
  /** Where connections may go (KSP_SSH_ALLOWED_NETWORKS) and their timeout. */
  policy?: SshTargetPolicy | undefined;
}) {
  const ssh: SshClient = deps.ssh ?? { fetchHostKey, login, exec };
  const policy: SshTargetPolicy = deps.policy ?? { networks: 'any', timeoutMs: 10_000 };

  return {
    /**
     * The host key at `host:port`, within the allowed networks. Whatever keeps an SSH server from
     * answering (closed, filtered, another service, a name that does not resolve) answers one
     * message, `server.noSshServer`, once the connection timeout has passed: the answer tells
     * nothing about the port beyond "no SSH here".
     */
    async hostKey(host: string, port: number): Promise<HostKey> {
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
    },

    /** Logs in with the current credential (or `password`), the pinned host key checked. */
    async connect(actor: Actor, row: ServerRecord, password?: string): Promise<Client> {
      if (!row.credential_id) throw stateForbids('server.noCredential', { name: row.name });
      if (!row.host_key_fingerprint) throw stateForbids('server.notPinned', { name: row.name });
      let secret = password;
      if (secret === undefined)
        secret = (await deps.credentials().openCurrent(actor, row.credential_id)).value;
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
    },

    /** Runs a command on a logged-in server; an SSH failure is answered as `sshError` words it. */
    exec: (row: ServerRecord, client: Client, command: string, input?: string) =>
      ssh.exec(client, command, input).catch((err: unknown) => {
        throw sshError(row, err);
      }),

    /** Runs a command as `exec` does, an SSH failure left as it is. */
    execRaw: (client: Client, command: string, input?: string) => ssh.exec(client, command, input),
  };
}

export type Connections = ReturnType<typeof createConnections>;
