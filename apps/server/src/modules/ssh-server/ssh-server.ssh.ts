import { createHash } from 'node:crypto';
import { Client, type ConnectConfig } from 'ssh2';

/** How long a connection may take to be ready (TCP, key exchange, login). */
const READY_TIMEOUT_MS = 10_000;
/** How long a command may run. */
const EXEC_TIMEOUT_MS = 20_000;

/** OpenSSH's form: `SHA256:` and the unpadded Base64 of the SHA-256 of the key blob. */
export const fingerprintOf = (blob: Buffer): string =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

/** The algorithm name a key blob starts with (ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa…). */
function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const n = blob.readUInt32BE(0);
  return n > 0 && n < 64 && blob.length >= 4 + n ? blob.subarray(4, 4 + n).toString('latin1') : 'unknown';
}

export interface HostKey {
  fingerprint: string;
  keyType: string;
}

/** Why a connection failed, for the service to turn into its message. */
export type SshFailure =
  | { kind: 'unreachable'; reason: string }
  | { kind: 'host-key-changed'; actual: HostKey }
  | { kind: 'auth-refused' };

export class SshError extends Error {
  constructor(readonly failure: SshFailure) {
    super(failure.kind);
  }
}

function unreachable(err: Error & { code?: string; level?: string }): SshError {
  if (err.level === 'client-authentication') return new SshError({ kind: 'auth-refused' });
  // The reason is the system's error code or ssh2's message: never a secret.
  const reason = err.code ?? (err.message || 'connection failed').slice(0, 200);
  return new SshError({ kind: 'unreachable', reason });
}

/** Connects to learn the host key, without logging in (the verifier ends the handshake). */
export function fetchHostKey(host: string, port: number, timeoutMs = READY_TIMEOUT_MS): Promise<HostKey> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let seen: HostKey | null = null;
    const done = (err: Error | null) => {
      client.end();
      if (seen) resolve(seen);
      else reject(err ? unreachable(err) : new SshError({ kind: 'unreachable', reason: 'no host key' }));
    };
    client.on('error', (err) => done(err));
    client.on('close', () => done(null));
    client.on('ready', () => done(null));
    client.connect({
      host,
      port,
      username: 'ksp-host-key-probe',
      readyTimeout: timeoutMs,
      hostVerifier: (key: Buffer) => {
        seen = { fingerprint: fingerprintOf(key), keyType: keyTypeOf(key) };
        return false;
      },
    });
  });
}

export interface LoginTarget {
  host: string;
  port: number;
  username: string;
  /** The pinned fingerprint: any other host key refuses the connection. */
  pinned: string;
  password?: string;
  privateKey?: string;
}

/** A logged-in connection whose host key matched the pinned one. */
export function login(target: LoginTarget): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let mismatch: HostKey | null = null;
    let settled = false;
    client.on('ready', () => {
      settled = true;
      resolve(client);
    });
    client.on('error', (err) => {
      if (settled) return;
      settled = true;
      client.end();
      reject(mismatch ? new SshError({ kind: 'host-key-changed', actual: mismatch }) : unreachable(err));
    });
    client.on('close', () => {
      if (settled) return;
      settled = true;
      reject(
        mismatch
          ? new SshError({ kind: 'host-key-changed', actual: mismatch })
          : new SshError({ kind: 'unreachable', reason: 'connection closed' }),
      );
    });
    const config: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.username,
      readyTimeout: READY_TIMEOUT_MS,
      // No keyboard-interactive or agent: only the credential given.
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        const fingerprint = fingerprintOf(key);
        if (fingerprint === target.pinned) return true;
        mismatch = { fingerprint, keyType: keyTypeOf(key) };
        return false;
      },
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.privateKey !== undefined ? { privateKey: target.privateKey } : {}),
    };
    try {
      client.connect(config);
    } catch (err) {
      // ssh2 throws at once on a private key it cannot parse.
      settled = true;
      reject(new SshError({ kind: 'unreachable', reason: (err as Error).message.slice(0, 200) }));
    }
  });
}

export interface ExecResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command, writing `input` to its standard input then closing it. */
export function exec(client: Client, command: string, input?: string): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, stream) => {
      if (err) return reject(unreachable(err));
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => {
        stream.close();
        reject(new SshError({ kind: 'unreachable', reason: `${command}: no answer` }));
      }, EXEC_TIMEOUT_MS);
      stream.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      stream.on('close', (status: number | null) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
      stream.end(input ?? '');
    });
  });
}
