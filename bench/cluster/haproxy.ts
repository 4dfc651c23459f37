/**
 * HAProxy (Debian `haproxy`) in front of the KSP nodes: the reference configuration of the
 * cluster deployment, written to a file, checked with `haproxy -c`, and run in the foreground
 * (`-db`) in master-worker mode (`-W`, so that SIGUSR2 reloads the file).
 *
 * Standalone: `npx tsx bench/cluster/haproxy.ts` prints the configuration for three example
 * nodes (checked with `haproxy -c`).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support.js';
import { background, isMain, onCleanup, run, sleep, tail, until, type Background } from './proc.js';

export const HAPROXY = process.env.BENCH_HAPROXY ?? '/usr/sbin/haproxy';
/** KSP's readiness: 200 only while the node can write to its database, 503 otherwise. */
export const READY_PATH = '/v1/ksp/system/ready';
/** KSP's liveness: 200 while the process answers, whatever the database. */
export const LIVE_PATH = '/v1/ksp/system/live';

export interface Backend {
  name: string;
  port: number;
  /** The node's KMIP listener, if any: passed through as TCP. */
  kmipPort?: number | null;
}

export interface HaproxyOptions {
  dir: string;
  backends: Backend[];
  /** The health check's path (GET, 200 expected); READY_PATH by default. */
  checkPath?: string;
  /**
   * `http` (default): HAProxy speaks HTTP to the nodes (it ends TLS, or the nodes serve plain
   * HTTP on a private network) and can retry. `tcp`: the API is passed through as TCP, as in
   * docs/cluster.md where TLS ends on the nodes: no request-level retries, and a node marked
   * down has its connections closed (`on-marked-down shutdown-sessions`).
   */
  mode?: 'http' | 'tcp';
  /** A directory to copy HAProxy's log to when it stops. */
  keepLogs?: string;
  /**
   * The liveness path (LIVE_PATH by default) of a second backend with the same nodes, used only
   * while no node is ready; null: none.
   */
  livePath?: string | null;
}

/**
 * The configuration. Choices, each for a reason:
 *
 * - Health: `GET <checkPath>` every 500 ms, down after 2 failures, up after 2 successes. With
 *   KSP's readiness path a node that cannot write to the database leaves the pool in about 1 s
 *   and returns about 1 s after it can again; a killed node is also seen at once by the failed
 *   connection of the next request.
 * - Retries (`retries 2`, `option redispatch 1`: each retry goes to another node):
 *   - `conn-failure` for every request: the node never received it, so sending it elsewhere
 *     cannot do anything twice. This is what hides a node that has just died, before the health
 *     check notices.
 *   - `empty-response`, `junk-response` and `503` only for requests without lasting effect:
 *     GET/HEAD, and the cryptographic operations under /v1/ksp/crypto/ (encrypt, sign, …, whose
 *     only trace is an audit record: a node that died after writing that record and before
 *     answering leaves two records for one answer, both true). Everything else (key creation,
 *     sign-in, any change) is never re-sent once a node may have received it: a key created
 *     twice, or a change applied twice, is worse than an error the client can see and retry
 *     knowing what it asked for. Those get HAProxy's 502 when their node dies under them.
 * - When no node is ready (database failover), requests go to the nodes that are alive
 *   (backend ksp_live, checked on the liveness path), which answer them themselves: HTTP 503,
 *   Retry-After and code 5031 while they cannot write, and success as soon as they can (before
 *   the readiness checks have noticed). Without it HAProxy has no server to give a request to:
 *   in HTTP mode it answers its own 503; in TCP mode it can only close the connection, which a
 *   client sees as a reset instead of "503, retry after 5 s". Only when no node is even alive
 *   does HAProxy answer 503 (with Retry-After and a KSP-style envelope) itself.
 * - `X-KSP-Node` on each answer names the node that gave it; `X-Forwarded-For` gives the nodes
 *   the client's address (they run with KSP_TRUST_PROXY=true, as docs/cluster.md says).
 * - KMIP (TTLV over mutual TLS) is passed through as TCP (`mode tcp`): TLS ends on the node,
 *   which needs the client's certificate itself. Its health is the same HTTP readiness check,
 *   made on the node's API port (`check port`), so both listeners leave and return together.
 *   A KMIP connection open on a node that dies is lost; the client reconnects (to another node).
 *   A node marked down has its KMIP connections closed, so that clients reconnect to one that
 *   is ready.
 * - `mode: 'tcp'` (see HaproxyOptions) keeps the health checks, the fallback to live nodes and
 *   the connection retries; the API's connections to a node marked down are closed too.
 */
export function haproxyConfig(
  o: HaproxyOptions & { port: number; kmipPort: number | null; socket: string },
): string {
  const checkPath = o.checkPath ?? READY_PATH;
  const servers = (portOf: (b: Backend) => number, suffix: (b: Backend) => string = () => '') =>
    o.backends.map((b) => `  server ${b.name} 127.0.0.1:${portOf(b)} check${suffix(b)}`);
  const lines = [
    'global',
    '  log stderr format iso local0 info',
    '  maxconn 4096',
    `  stats socket ${o.socket} mode 600 level admin`,
    '',
    'defaults',
    '  log global',
    '  option dontlognull',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout check 1s',
    '  retries 2',
    '  option redispatch 1',
    '',
  ];
  const mode = o.mode ?? 'http';
  const live = o.livePath === undefined ? LIVE_PATH : o.livePath;
  lines.push(
    'frontend ksp_api',
    `  mode ${mode}`,
    `  option ${mode}log`,
    '  option dontlog-normal',
    `  bind 127.0.0.1:${o.port}`,
    ...(live ? ['  use_backend ksp_live if { nbsrv(ksp_nodes) eq 0 }'] : []),
    '  default_backend ksp_nodes',
    '',
    'backend ksp_nodes',
    `  mode ${mode}`,
    '  balance roundrobin',
    `  option httpchk GET ${checkPath}`,
    '  http-check expect status 200',
    ...(mode === 'tcp'
      ? ['  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions']
      : [
          '  default-server inter 500ms fall 2 rise 2',
          '  option forwardfor',
          '  retry-on conn-failure empty-response junk-response 503',
          '  http-request disable-l7-retry unless { method GET HEAD } || { path_beg /v1/ksp/crypto/ }',
          '  http-response set-header X-KSP-Node %s',
        ]),
    ...servers((b) => b.port),
  );
  if (live) {
    lines.push(
      '',
      'backend ksp_live',
      `  mode ${mode}`,
      '  balance roundrobin',
      `  option httpchk GET ${live}`,
      '  http-check expect status 200',
      '  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions',
      ...(mode === 'http'
        ? [
            '  http-response set-header X-KSP-Node %s',
            `  http-error status 503 content-type application/json hdr Retry-After 5 string '{"code":503,"msg":"No KSP node answers","data":null}'`,
          ]
        : []),
      ...servers((b) => b.port),
    );
  }
  if (o.kmipPort) {
    lines.push(
      '',
      'listen ksp_kmip',
      '  mode tcp',
      `  bind 127.0.0.1:${o.kmipPort}`,
      '  balance leastconn',
      '  timeout client 150s',
      '  timeout server 150s',
      `  option httpchk GET ${checkPath}`,
      '  http-check expect status 200',
      '  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions',
      ...servers(
        (b) => b.kmipPort ?? 0,
        (b) => ` port ${b.port}`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface Haproxy {
  port: number;
  base: string;
  kmipPort: number | null;
  config: string;
  log: string;
  /** Each server's state in the API backend (UP, DOWN, …) from the stats socket. */
  servers(): Promise<Record<string, string>>;
  /** Resolves once every server of the API backend is UP (false after `timeoutMs`). */
  allUp(timeoutMs?: number): Promise<boolean>;
  /** Writes the configuration again (with these backends, if given) and reloads it (SIGUSR2). */
  reload(backends?: Backend[]): Promise<void>;
  stop(): Promise<void>;
}

export async function startHaproxy(o: HaproxyOptions): Promise<Haproxy> {
  const port = await freePort();
  const kmipPort = o.backends.some((b) => b.kmipPort) ? await freePort() : null;
  const config = join(o.dir, 'haproxy.cfg');
  const socket = join(o.dir, 'haproxy.sock');
  const log = join(o.dir, 'haproxy.log');
  let backends = o.backends;
  const write = async () => {
    writeFileSync(config, haproxyConfig({ ...o, backends, port, kmipPort, socket }));
    await run(HAPROXY, ['-c', '-q', '-f', config]);
  };
  await write();
  const proc: Background = background('haproxy', HAPROXY, ['-W', '-db', '-f', config], log);

  const stats = () =>
    new Promise<string>((resolve, reject) => {
      const s = connect(socket);
      let out = '';
      s.setEncoding('utf8');
      s.on('data', (d: string) => (out += d));
      s.on('end', () => resolve(out));
      s.on('error', reject);
      s.write('show stat\n');
    });
  const servers = async () => {
    const rows = (await stats()).split('\n');
    const header = rows[0]!.replace(/^# /, '').split(',');
    const [px, sv, st] = ['pxname', 'svname', 'status'].map((c) => header.indexOf(c));
    const out: Record<string, string> = {};
    for (const row of rows.slice(1)) {
      const f = row.split(',');
      if (f[px!] === 'ksp_nodes' && f[sv!] !== 'BACKEND' && f[sv!] !== 'FRONTEND') out[f[sv!]!] = f[st!]!;
    }
    return out;
  };
  const allUp = (timeoutMs = 15_000) =>
    until(
      () =>
        servers().then(
          (s) => backends.every((b) => s[b.name] === 'UP'),
          () => false,
        ),
      timeoutMs,
      100,
    );

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    proc.signalGroup('SIGTERM');
    if ((await Promise.race([proc.exited.then(() => 'done'), sleep(5000)])) !== 'done') {
      proc.signalGroup('SIGKILL');
      await proc.exited;
    }
    if (o.keepLogs) {
      mkdirSync(o.keepLogs, { recursive: true });
      copyFileSync(log, join(o.keepLogs, 'haproxy.log'));
    }
  };
  onCleanup(stop);
  if (
    !(await until(
      () =>
        servers().then(
          () => true,
          () => !proc.running(),
        ),
      10_000,
      100,
    )) ||
    !proc.running()
  ) {
    await stop();
    throw new Error(`haproxy did not start\n${tail(log)}`);
  }
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    kmipPort,
    config,
    log,
    servers,
    allUp,
    async reload(next) {
      if (next) backends = next;
      await write();
      signalMaster(proc, 'SIGUSR2');
    },
    stop,
  };
}

/** The master of `-W` is the process spawned (it leads the group; workers are its children). */
function signalMaster(proc: Background, sig: NodeJS.Signals) {
  try {
    process.kill(proc.pid, sig);
  } catch {
    // Ended.
  }
}

if (isMain(import.meta.url)) {
  (async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'ksp-haproxy-'));
    try {
      const backends = [1, 2, 3].map((i) => ({ name: `ksp-${i}`, port: 8080 + i, kmipPort: 5696 + i }));
      const text = haproxyConfig({
        dir,
        backends,
        port: 8443,
        kmipPort: 5696,
        socket: join(dir, 'haproxy.sock'),
      });
      writeFileSync(join(dir, 'haproxy.cfg'), text);
      await run(HAPROXY, ['-c', '-f', join(dir, 'haproxy.cfg')]);
      console.log(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
