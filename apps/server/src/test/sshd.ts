import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * A throwaway OpenSSH server on a loopback port with its own host key and configuration
 * (docs/dependencies.md#test-peers-and-tools), and throwaway local accounts. Runs as root (CI does); sshd is
 * spawned by the test process and awaited on stop, so no zombie is left.
 */
export interface Sshd {
  port: number;
  /** The host key's fingerprint as OpenSSH prints it. */
  fingerprint: string;
  /** Puts a public key in the account's authorized keys (this sshd's own file). */
  authorize(account: string, publicKey: string): void;
  /** Stops this sshd and starts another on the same port with a new host key (a reinstalled server, or an impostor). */
  replaceHostKey(): Promise<void>;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/** Whether Debian's openssh-server is installed (CI installs it). */
export const sshdAvailable = () => spawnSync('/usr/sbin/sshd', ['-V']).error === undefined;

/** A local account with a first password (useradd, chpasswd); answers its remover. */
export function throwawayAccount(name: string, password: string): () => void {
  spawnSync('userdel', ['-r', name]);
  run('useradd', ['-m', '-s', '/bin/bash', name]);
  setPassword(name, password);
  return () => void spawnSync('userdel', ['-r', name]);
}

/** Sets an account's password and lets it change it again at once (no minimum age). */
export function setPassword(name: string, password: string): void {
  run('chpasswd', [], `${name}:${password}\n`);
  run('chage', ['-m', '0', name]);
}

/** Forbids the account to change its own password (a minimum age): its `passwd` then fails. */
export function forbidPasswordChange(name: string): void {
  run('chage', ['-m', '99999', name]);
}

export async function startSshd(): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-sshd-'));
  mkdirSync('/run/sshd', { recursive: true });
  mkdirSync(join(dir, 'keys'));
  // sshd reads authorized keys as the account: the folders must let it in (the host key stays 0600).
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'keys'), 0o755);
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin no',
      `AuthorizedKeysFile ${join(dir, 'keys')}/%u`,
      'StrictModes no',
      'MaxStartups 50',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  let fingerprint = '';
  let log = '';

  const start = async () => {
    rmSync(join(dir, 'host_key'), { force: true });
    rmSync(join(dir, 'host_key.pub'), { force: true });
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
    const blob = Buffer.from(readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ')[1]!, 'base64');
    fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
    run('/usr/sbin/sshd', ['-t', '-f', config]);
    const c = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
    child = c;
    for (let i = 0; i < 200 && !(await listening(port)); i++) {
      if (c.exitCode !== null) throw new Error(`sshd exited: ${log}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const halt = async () => {
    const c = child;
    child = null;
    if (c && c.exitCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  };

  await start();
  return {
    port,
    get fingerprint() {
      return fingerprint;
    },
    authorize(account, publicKey) {
      writeFileSync(join(dir, 'keys', account), publicKey, { mode: 0o644 });
    },
    async replaceHostKey() {
      await halt();
      await start();
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
