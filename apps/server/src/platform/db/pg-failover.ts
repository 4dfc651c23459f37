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
  /** Milliseconds between two checks of the host in use (several hosts only). Default 2000. */
  watchMs?: number;
}

/**
 * With several hosts: how long a connection (or a wait for a free one) may take before the host
 * counts as out of reach. A waiter of a pool that is being retired is then answered too (pg-pool
 * leaves a waiter of an ended pool pending for ever otherwise).
 */
const CONNECT_TIMEOUT_MS = 5000;
/** How long the watchdog's check of the host in use may take. */
const CHECK_TIMEOUT_MS = 4000;
/** Failed checks in a row that make the host in use count as silent (not merely slow). */
const CHECKS_TO_FAIL = 2;

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
    const pool = new pg.Pool({
      connectionString: urls[i],
      max: options.max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    pool.on('error', (err) => listeners.error.forEach((l) => l(err)));
    pool.on('connect', (client) => listeners.connect.forEach((l) => l(client)));
    return pool;
  };
  const pools = hosts.map((_, i) => make(i));
  let current = 0;
  /** The host in use must be checked before its next connection is handed out. */
  let suspect = true;
  let ended = false;
  /** Connections handed out and not yet released, with the host they lead to. */
  const out = new Map<pg.PoolClient, number>();

  const retire = (i: number) => {
    // Its idle connections lead to a server that is down or a standby: close them, start afresh.
    const old = pools[i]!;
    pools[i] = make(i);
    void old.end().catch(() => undefined);
  };

  /** Watches a checked-out client's queries: a dropped connection or a read-only refusal makes the host suspect. */
  const watch = (client: pg.PoolClient, host: number) => {
    // pg-pool gives each checkout its own release: note the hand-out until it is called.
    out.set(client, host);
    const release = client.release.bind(client);
    client.release = (err?: Error | boolean) => {
      out.delete(client);
      release(err);
    };
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

  /**
   * The watchdog: a primary that stops answering without closing its connections (a hung machine,
   * a network cut) fails nothing by itself; queries on it just wait. Every `watchMs` a fresh
   * connection checks the host in use within CHECK_TIMEOUT_MS; after CHECKS_TO_FAIL failures in a
   * row the host is suspect (the next checkout looks for the primary) and the connections handed
   * out to it are cut, so the calls waiting on them answer 503 instead of hanging. A host that
   * answers but is now a standby is only made suspect (its connections fail on their next write).
   */
  let failures = 0;
  let checking = false;
  async function check(): Promise<void> {
    if (checking || ended) return;
    checking = true;
    const host = current;
    const client = new pg.Client({ connectionString: urls[host], connectionTimeoutMillis: CHECK_TIMEOUT_MS });
    client.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        client
          .connect()
          .then(() => client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('check timed out')), CHECK_TIMEOUT_MS);
        }),
      ]);
      failures = 0;
      if (answer.rows[0]?.standby && host === current) suspect = true;
    } catch {
      failures += 1;
      if (failures >= CHECKS_TO_FAIL && host === current) {
        failures = 0;
        suspect = true;
        for (const [held, at] of out)
          if (at === host)
            (
              held as unknown as { connection?: { stream?: { destroy(): void } } }
            ).connection?.stream?.destroy();
        retire(host);
      }
    } finally {
      clearTimeout(timer);
      void client.end().catch(() => undefined);
      checking = false;
    }
  }
  const watchdog = setInterval(() => void check(), options.watchMs ?? 2000);
  watchdog.unref();

  return {
    async connect() {
      if (ended) throw new Error('the database pool is closed');
      if (!suspect) {
        try {
          const client = await pools[current]!.connect();
          watch(client, current);
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
        watch(client, i);
        return client;
      }
      // No writable primary now (a failover in progress, or every host down): a storage error.
      throw Object.assign(new Error(`Connection terminated: no writable primary among ${hosts.join(', ')}`), {
        code: 'ECONNREFUSED',
      });
    },
    async end() {
      ended = true;
      clearInterval(watchdog);
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    },
    current: () => hosts[current]!,
    on(event: 'error' | 'connect', listener: never) {
      (listeners[event] as unknown[]).push(listener);
    },
  };
}
