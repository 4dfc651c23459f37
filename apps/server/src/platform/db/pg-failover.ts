import pg from 'pg';
import { isStorageUnavailable } from './storage-health.js';

/**
 * PostgreSQL through a failover (docs/cluster.md#database-failover). `KSP_DATABASE_URL` may name
 * several hosts, as pg_auto_failover's `pg_autoctl show uri` and libpq write it:
 *
 *     postgres://ksp@10.0.0.1:5432,10.0.0.2:5432/ksp?target_session_attrs=read-write
 *
 * node-postgres connects to one host only, so KSP keeps one pool per host and uses the one whose
 * server is the primary (`pg_is_in_recovery()` false). It looks again, host after host, when a
 * connection cannot be made, when a connection drops, and when a write is refused because the
 * server has become a standby (SQLSTATE 25006): so a node follows a failover by itself, without
 * a restart. While no host is a writable primary, a checkout fails with a storage error, which
 * every call answers with HTTP 503 and Retry-After (error-handler.ts). With one host this is a
 * plain pool.
 */

/** The hosts of a connection URL and the URL of each alone (without target_session_attrs). */
export function splitHosts(url: string): { hosts: string[]; urls: string[] } {
  const m = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/.exec(url);
  if (!m) return { hosts: [url], urls: [url] };
  const [, scheme, auth = '', hostList = '', path = '', query = ''] = m;
  const hosts = hostList.split(',').filter(Boolean);
  const params = new URLSearchParams(query.slice(1));
  params.delete('target_session_attrs');
  const rest = params.toString();
  const urls = (hosts.length ? hosts : ['']).map(
    (h) => `${scheme}${auth}${h}${path}${rest ? `?${rest}` : ''}`,
  );
  return { hosts: hosts.length ? hosts : [''], urls };
}

/** A refused write on a server that is no longer the primary. */
const isReadOnly = (err: unknown) => (err as { code?: unknown } | null)?.code === '25006';

const PATCHED = Symbol('ksp.failover');

export interface FailoverPool {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
  /** The host in use (host:port), for the log and the dashboard. */
  current(): string;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'connect', listener: (client: pg.PoolClient) => void): void;
}

export interface FailoverOptions {
  max: number;
  /** Told once per switch of host. */
  onSwitch?: (from: string, to: string) => void;
}

export function createPgPool(url: string, options: FailoverOptions): FailoverPool {
  const { hosts, urls } = splitHosts(url);
  if (hosts.length === 1)
    return Object.assign(new pg.Pool({ connectionString: urls[0], max: options.max }), {
      current: () => hosts[0]!,
    });
  const listeners: { error: ((err: Error) => void)[]; connect: ((client: pg.PoolClient) => void)[] } = {
    error: [],
    connect: [],
  };
  const make = (i: number) => {
    const pool = new pg.Pool({ connectionString: urls[i], max: options.max });
    pool.on('error', (err) => listeners.error.forEach((l) => l(err)));
    pool.on('connect', (client) => listeners.connect.forEach((l) => l(client)));
    return pool;
  };
  const pools = hosts.map((_, i) => make(i));
  let current = 0;
  /** The host in use must be checked before its next connection is handed out. */
  let suspect = true;
  let ended = false;

  const retire = (i: number) => {
    // Its idle connections lead to a server that is down or a standby: close them, start afresh.
    const old = pools[i]!;
    pools[i] = make(i);
    void old.end().catch(() => undefined);
  };

  /** Watches a checked-out client's queries: a dropped connection or a read-only refusal makes the host suspect. */
  const watch = (client: pg.PoolClient) => {
    const c = client as pg.PoolClient & { [PATCHED]?: true };
    if (c[PATCHED]) return;
    c[PATCHED] = true;
    const query = c.query.bind(c) as (...args: unknown[]) => unknown;
    (c as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const answer = query(...args);
      if (answer && typeof (answer as Promise<unknown>).then === 'function')
        (answer as Promise<unknown>).catch((err: unknown) => {
          if (isReadOnly(err) || isStorageUnavailable(err)) suspect = true;
        });
      return answer;
    };
  };

  /** Whether host `i` answers as a writable primary (the client stays checked out when it does). */
  async function tryHost(i: number): Promise<pg.PoolClient | null> {
    let client: pg.PoolClient;
    try {
      client = await pools[i]!.connect();
    } catch (err) {
      if (isStorageUnavailable(err)) return null;
      throw err;
    }
    try {
      const res = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      if (!res.rows[0]?.standby) return client;
      client.release();
    } catch (err) {
      client.release(err as Error);
      if (!isStorageUnavailable(err)) throw err;
    }
    retire(i);
    return null;
  }

  return {
    async connect() {
      if (ended) throw new Error('the database pool is closed');
      if (!suspect) {
        try {
          const client = await pools[current]!.connect();
          watch(client);
          return client;
        } catch (err) {
          if (!isStorageUnavailable(err)) throw err;
          suspect = true;
        }
      }
      // Look for the primary: the host in use first, then the others in order.
      for (let step = 0; step < hosts.length; step++) {
        const i = (current + step) % hosts.length;
        const client = await tryHost(i);
        if (!client) continue;
        if (i !== current) {
          const from = hosts[current]!;
          retire(current);
          current = i;
          options.onSwitch?.(from, hosts[i]!);
        }
        suspect = false;
        watch(client);
        return client;
      }
      // No writable primary now (a failover in progress, or every host down): a storage error.
      throw Object.assign(new Error(`Connection terminated: no writable primary among ${hosts.join(', ')}`), {
        code: 'ECONNREFUSED',
      });
    },
    async end() {
      ended = true;
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    },
    current: () => hosts[current]!,
    on(event: 'error' | 'connect', listener: never) {
      (listeners[event] as unknown[]).push(listener);
    },
  };
}
