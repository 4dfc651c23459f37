import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentAuthBinary, AgentConfig } from '@ksp/contracts';
import type { Subject } from './rules.js';

/**
 * Authorised binaries and the client lock (README.md "Authorised binaries", "Client lock").
 *
 * A kernel agent learns from an authenticator binary (sshd, login, su, a database server) which
 * user it authenticated and evaluates the policies' user sets for that user. This user-space
 * agent cannot observe authentication, so it uses an honest stand-in: the environment variable
 * `KSP_AGENT_AUTH_USER` (a user name or uid) names the authenticated user, and it is honoured
 * only when the process that started `ksp-agent` (its parent) runs an executable listed among
 * the client's authorised binaries (and, when the entry names hashes, one of them). Otherwise
 * the variable is ignored and the OS user of the process decides. The three privileges are
 * treated alike here.
 */
export const AUTH_USER_ENV = 'KSP_AGENT_AUTH_USER';

export interface AuthProbe {
  env: Record<string, string | undefined>;
  /** The resolved executable of the parent process (undefined when it cannot be read). */
  parentExe: () => string | undefined;
  /** SHA-256 (lowercase hex) of a file. */
  sha256: (path: string) => string;
  /** A user by name or uid, from /etc/passwd and /etc/group. */
  lookupUser: (nameOrUid: string) => Subject | undefined;
}

function passwdLines(file: string): string[][] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':'));
  } catch {
    return [];
  }
}

export const systemProbe: AuthProbe = {
  env: process.env,
  parentExe: () => {
    try {
      return realpathSync(`/proc/${process.ppid}/exe`);
    } catch {
      return undefined;
    }
  },
  sha256: (path) => createHash('sha256').update(readFileSync(path)).digest('hex'),
  lookupUser: (nameOrUid) => {
    const entry = passwdLines('/etc/passwd').find((p) => p[0] === nameOrUid || p[2] === nameOrUid);
    if (!entry) return undefined;
    const uid = Number(entry[2]);
    const gid = Number(entry[3]);
    const gname = passwdLines('/etc/group').find((g) => g[2] === String(gid))?.[0];
    return { uid, gid, uname: entry[0]!, ...(gname ? { gname } : {}) };
  },
};

export type AuthResolution =
  | { kind: 'none' }
  | { kind: 'authenticated'; user: Subject; binary: AgentAuthBinary }
  | { kind: 'ignored'; reason: string };

/** The authorised authenticator binary `exe` is, if any (path equal, hash listed when required). */
export function authorisedBinary(
  config: AgentConfig | undefined,
  exe: string,
  sha256: (path: string) => string,
): AgentAuthBinary | undefined {
  const path = resolve(exe);
  let hash: string | undefined;
  for (const b of config?.auth_binaries ?? []) {
    if (!b.privilege.startsWith('authenticator') || resolve(b.filename) !== path) continue;
    if (b.sha256 === undefined) return b;
    hash ??= sha256(path);
    if (b.sha256.includes(hash)) return b;
  }
  return undefined;
}

/** Whether `KSP_AGENT_AUTH_USER` applies to this read, and for whom. */
export function authenticatedUser(
  config: AgentConfig | undefined,
  probe: AuthProbe = systemProbe,
): AuthResolution {
  const wanted = probe.env[AUTH_USER_ENV]?.trim();
  if (!wanted) return { kind: 'none' };
  const exe = probe.parentExe();
  if (!exe) return { kind: 'ignored', reason: 'the parent process executable cannot be read' };
  const binary = authorisedBinary(config, exe, probe.sha256);
  if (!binary) return { kind: 'ignored', reason: `${exe} is not an authorised authenticator binary` };
  const user = probe.lookupUser(wanted);
  if (!user) return { kind: 'ignored', reason: `user ${wanted} is unknown on this host` };
  return { kind: 'authenticated', user, binary };
}

/** Refuses a local change of the agent's own configuration while KSP has locked the client. */
export function refuseWhenLocked(config: AgentConfig | undefined, what: string): void {
  if (config?.client_locked)
    throw new Error(
      `${what} refused: this client is locked by KSP (client_locked); unlock it in the KSP console first`,
    );
}
