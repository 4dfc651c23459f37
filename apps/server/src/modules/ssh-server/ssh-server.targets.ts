import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ipAllowed } from '@ksp/contracts';
import { forbidden, stateForbids } from '../../platform/errors.js';

/**
 * Where the server may be pointed at (KSP_SSH_ALLOWED_NETWORKS, set by the operator), and the
 * per-user limit of host key fetches: `credential:write` must not make the server a port
 * scanner of whatever it can reach.
 */
export interface SshTargetPolicy {
  /** CIDR ranges an SSH target's address must fall in; `any`: every address. */
  networks: readonly string[] | 'any';
  /** How long a connection may take to be ready; every failed host key fetch answers after it. */
  timeoutMs: number;
}

/** Host key fetches (`fetch-fingerprint`, `confirm-fingerprint`) one user may start per minute, per node. */
export const FINGERPRINT_PER_MINUTE = 10;

/**
 * The address to connect to for `host`: the host itself when it is an IP address, else its
 * first DNS answer, which must lie in the allowed networks (connecting to that address, not the
 * name again, so a second DNS answer cannot lead elsewhere). Outside: 4030
 * `server.targetNotAllowed`. A name that does not resolve answers undefined.
 */
export async function allowedAddress(host: string, policy: SshTargetPolicy): Promise<string | undefined> {
  let address: string | undefined = isIP(host) ? host : undefined;
  if (!address) {
    try {
      address = (await lookup(host)).address;
    } catch {
      return undefined;
    }
  }
  if (policy.networks !== 'any' && (policy.networks.length === 0 || !ipAllowed(address, policy.networks)))
    throw forbidden('server.targetNotAllowed', { host });
  return address;
}

/**
 * Counts host key fetches per user in a sliding minute, synchronously (taken before any await),
 * so parallel requests cannot all slip past the count.
 */
export function createProbeLimiter(now: () => number, limit = FINGERPRINT_PER_MINUTE) {
  const recent = new Map<string, number[]>();
  return (userId: string): void => {
    const t = now();
    const kept = (recent.get(userId) ?? []).filter((at) => t - at < 60_000);
    if (kept.length >= limit) {
      recent.set(userId, kept);
      const seconds = Math.max(1, Math.ceil((kept[0]! + 60_000 - t) / 1000));
      throw stateForbids('server.probeLimit', { limit, seconds });
    }
    kept.push(t);
    recent.set(userId, kept);
    if (recent.size > 10_000) recent.delete(recent.keys().next().value!);
  };
}

/** Waits until `ms` after `started` (real time): failures all answer at one moment. */
export const padTo = (started: number, ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, started + ms - Date.now())));
