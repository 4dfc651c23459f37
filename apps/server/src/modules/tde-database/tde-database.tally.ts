import type { LogSource } from '@ksp/contracts';
import { auditRow, type AuditEntry } from '../../platform/audit.js';
import type { AuditTable } from '../../platform/db/schema.js';
import type { GrantReads } from './tde-database.store.js';

/** Who read or was refused: a known client, or only an address (a token that names none). */
export interface Reader {
  clientId: string | null;
  clientName: string;
  domainId: string | null;
  ip: string;
}

/** One read or refusal as the endpoint reports it. */
export type Event =
  | {
      result: 'success';
      reader: Reader & { clientId: string; domainId: string };
      dbKeyId: number;
      keyId: string;
      keyName: string;
      version: number;
    }
  | {
      result: 'failure';
      reader: Reader;
      reason: string;
      params: Record<string, string | number>;
      dbKeyId: number | null;
      keyId: string | null;
      keyName: string;
    };

interface Pending {
  event: Event;
  count: number;
  first: Date;
  last: Date;
  addresses: Set<string>;
}

/** Beyond this many open windows (a flood of refusals from many addresses), new ones share one per reason. */
const MAX_OPEN = 10_000;
const ADDRESSES_KEPT = 16;
const SOURCE: LogSource = 'database';

/**
 * Database key reads and refusals, counted in windows (docs/tde-database.md#audit): the reads
 * of one key version by one client, and the refusals of one kind for one client (or one
 * address, when the token names no client), share one audit record per window with a count,
 * the first and last time and the addresses. A database at start reads each key a few times
 * from several threads; a window keeps that to one record. A record is written when its window
 * ends, or when the server stops; a crash loses at most one window of records.
 */
export function createReadTally(windowMs: number, now: () => Date) {
  let open = new Map<string, Pending>();

  const keyOf = (e: Event): string => {
    const who = e.reader.clientId ?? `ip:${e.reader.ip}`;
    if (e.result === 'success') return `s|${who}|${e.dbKeyId}|${e.keyId}|${e.version}`;
    if (open.size >= MAX_OPEN) return `f|overflow|${e.reason}`;
    return `f|${who}|${e.dbKeyId ?? '-'}|${e.reason}`;
  };

  function entryOf(p: Pending): AuditTable {
    const e = p.event;
    const who = {
      userId: e.reader.clientId,
      username: e.reader.clientName,
      domainId: e.reader.domainId,
      domainName: '',
      source: SOURCE,
    };
    const window = {
      count: p.count,
      first_at: p.first.toISOString(),
      last_at: p.last.toISOString(),
      addresses: [...p.addresses].join(' '),
      ...(e.dbKeyId !== null ? { db_key_id: e.dbKeyId } : {}),
    };
    const entry: AuditEntry =
      e.result === 'success'
        ? {
            who,
            action: 'db-key.read',
            target: e.keyName,
            result: 'success',
            ip: e.reader.ip,
            objectId: e.keyId,
            details: { ...window, key_id: e.keyId, version: e.version },
          }
        : {
            who,
            action: 'db-key.read',
            target: e.keyName || '-',
            result: 'failure',
            ip: e.reader.ip,
            objectId: e.keyId,
            details: { ...window, reason: e.reason, ...e.params },
          };
    return { ...auditRow(entry, p.first), count: p.count };
  }

  return {
    add(event: Event): void {
      const at = now();
      const key = keyOf(event);
      const found = open.get(key);
      if (found) {
        found.count += 1;
        found.last = at;
        if (found.addresses.size < ADDRESSES_KEPT) found.addresses.add(event.reader.ip);
        // The record names the address of the last read (the client's last address).
        found.event = { ...found.event, reader: { ...found.event.reader, ip: event.reader.ip } } as Event;
        return;
      }
      open.set(key, { event, count: 1, first: at, last: at, addresses: new Set([event.reader.ip]) });
    },

    /**
     * Takes the windows that have ended (all of them with `all`): their audit records, what
     * they add to grants and keys, and each client's last read.
     */
    take(all = false) {
      const cutoff = now().getTime() - windowMs;
      const ended: Pending[] = [];
      const kept = new Map<string, Pending>();
      for (const [key, p] of open) {
        if (all || p.first.getTime() <= cutoff) ended.push(p);
        else kept.set(key, p);
      }
      open = kept;
      const grants: GrantReads[] = [];
      const keyUses = new Map<string, number>();
      const clients = new Map<string, { at: string; ip: string }>();
      for (const p of ended) {
        const e = p.event;
        if (e.result !== 'success') continue;
        grants.push({
          clientId: e.reader.clientId,
          dbKeyId: e.dbKeyId,
          keyId: e.keyId,
          reads: p.count,
          lastAt: p.last.toISOString(),
          lastVersion: e.version,
        });
        keyUses.set(e.keyId, (keyUses.get(e.keyId) ?? 0) + p.count);
        const seen = clients.get(e.reader.clientId);
        if (!seen || seen.at < p.last.toISOString())
          clients.set(e.reader.clientId, { at: p.last.toISOString(), ip: e.reader.ip });
      }
      return { records: ended.map(entryOf), grants, keyUses, clients };
    },

    get size() {
      return open.size;
    },
  };
}

export type ReadTally = ReturnType<typeof createReadTally>;
