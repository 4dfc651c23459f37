/**
 * N KSP nodes on one PostgreSQL database: the built server (`apps/server/dist/main.js`, as
 * `npm start` runs it) as separate processes on free loopback ports, plain HTTP, each with its
 * own data directory and `KSP_NODE_NAME` ksp-1…ksp-N. The first node initializes and activates
 * KSP; the others get a copy of its seal file (README: "each node needs a copy of the seal
 * file") and start on the same database.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api as contract } from '@ksp/contracts';
import { BENCH_VENDOR_PUBLIC, api, freePort, initialize, root } from '../support.js';
import { LIVE_PATH } from './haproxy.js';
import { background, onCleanup, sleep, tail, type Background } from './proc.js';

export const SERVER_MAIN = join(root, 'apps/server/dist/main.js');

export interface KspNode {
  index: number;
  name: string;
  port: number;
  base: string;
  dataDir: string;
  log: string;
  kmipPort: number | null;
  proc: Background | null;
}

export interface KspCluster {
  dir: string;
  nodes: KspNode[];
  /** The first administrator's session (sessions live in the database: valid on every node). */
  token: string;
  /** SIGKILL to node `n` (1-based); answers the time it was sent. */
  kill9(n: number): number;
  /** Starts node `n` again with the same settings; answers ms until it answers HTTP. */
  restart(n: number): Promise<number>;
  /** Stops every node and removes their directory (after copying their logs to `keepLogs`). */
  stop(): Promise<void>;
}

export interface KspNodesOptions {
  count: number;
  databaseUrl: string;
  /** A certificate and key for each node's KMIP listener (KSP_KMIP_PORT on a free port). */
  kmip?: { cert: string; key: string };
  env?: Record<string, string>;
  say?: (line: string) => void;
  /** A directory to copy the nodes' logs to when they stop. */
  keepLogs?: string;
}

/** Resolves once the node answers HTTP at all; rejects with its log if the process ends first. */
async function answering(node: KspNode, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!node.proc?.running()) {
      const code = node.proc ? await node.proc.exited : 'not started';
      throw new Error(
        `${node.name} ended (${code}) before answering\n--- ${node.log} ---\n${tail(node.log)}`,
      );
    }
    try {
      const res = await fetch(node.base + LIVE_PATH, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${node.name} did not answer within ${timeoutMs / 1000} s\n${tail(node.log)}`);
}

export async function startKspNodes(o: KspNodesOptions): Promise<KspCluster> {
  const say = o.say ?? ((line: string) => console.log(line));
  if (!existsSync(SERVER_MAIN)) {
    throw new Error(
      `${SERVER_MAIN} is missing: npm run build -w packages/contracts && npm run build -w apps/server`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'ksp-cluster-'));
  const backups = join(dir, 'backups');
  mkdirSync(backups);
  const nodes: KspNode[] = [];
  for (let i = 1; i <= o.count; i++) {
    const port = await freePort();
    const dataDir = join(dir, `ksp-${i}`);
    mkdirSync(dataDir, { mode: 0o700 });
    nodes.push({
      index: i,
      name: `ksp-${i}`,
      port,
      base: `http://127.0.0.1:${port}`,
      dataDir,
      log: join(dir, `ksp-${i}.log`),
      kmipPort: o.kmip ? await freePort() : null,
      proc: null,
    });
  }

  const launch = (node: KspNode) => {
    node.proc = background(
      node.name,
      process.execPath,
      [SERVER_MAIN],
      node.log,
      {
        ...process.env,
        KSP_HOST: '127.0.0.1',
        KSP_PORT: String(node.port),
        KSP_DATA_DIR: node.dataDir,
        KSP_DATABASE_URL: o.databaseUrl,
        KSP_NODE_NAME: node.name,
        // The nodes of a cluster share one backup directory (README, KSP_BACKUP_DIR).
        KSP_BACKUP_DIR: backups,
        KSP_LOG_LEVEL: process.env.KSP_LOG_LEVEL ?? 'warn',
        KSP_SESSION_IDLE_SECONDS: '3600',
        KSP_LICENSE_TEST_PUBLIC_KEY: BENCH_VENDOR_PUBLIC,
        // The load signs in as one user from one address many times a minute: not an attack.
        KSP_LOGIN_RATE_PER_USER: '1000000',
        KSP_LOGIN_RATE_PER_ADDRESS: '1000000',
        ...(o.kmip && node.kmipPort
          ? { KSP_KMIP_PORT: String(node.kmipPort), KSP_KMIP_CERT: o.kmip.cert, KSP_KMIP_KEY: o.kmip.key }
          : {}),
        ...o.env,
      },
      root,
    );
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const node of nodes) node.proc?.signalGroup('SIGTERM');
    const all = Promise.all(nodes.flatMap((n) => (n.proc ? [n.proc.exited] : [])));
    if ((await Promise.race([all.then(() => 'done'), sleep(10_000)])) !== 'done') {
      for (const node of nodes) node.proc?.signalGroup('SIGKILL');
      await all;
    }
    if (o.keepLogs) {
      mkdirSync(o.keepLogs, { recursive: true });
      for (const node of nodes) {
        if (existsSync(node.log)) copyFileSync(node.log, join(o.keepLogs, `${node.name}.log`));
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  onCleanup(stop);

  try {
    const first = nodes[0]!;
    launch(first);
    await answering(first);
    const token = await initialize(first.base);
    say(`${first.name} initialized and activated KSP on ${first.base}`);
    // Every node unseals the root key with the same seal file.
    for (const node of nodes.slice(1))
      copyFileSync(join(first.dataDir, 'seal.key'), join(node.dataDir, 'seal.key'));
    for (const node of nodes.slice(1)) launch(node);
    await Promise.all(nodes.slice(1).map((n) => answering(n)));
    for (const node of nodes) {
      const status = await api<{ initialized: boolean; activated: boolean; sealed: boolean }>(
        node.base,
        contract.system.status.path,
      );
      if (!status.initialized || !status.activated || status.sealed) {
        throw new Error(`${node.name} is not ready: ${JSON.stringify(status)}`);
      }
    }
    say(
      `KSP nodes: ${nodes.map((n) => `${n.name} ${n.base}${n.kmipPort ? ` (KMIP :${n.kmipPort})` : ''}`).join(', ')}`,
    );
    return {
      dir,
      nodes,
      token,
      kill9(n) {
        const node = nodes[n - 1]!;
        const at = Date.now();
        node.proc?.signalGroup('SIGKILL');
        return at;
      },
      async restart(n) {
        const node = nodes[n - 1]!;
        if (node.proc?.running()) {
          node.proc.signalGroup('SIGKILL');
          await node.proc.exited;
        }
        const t = Date.now();
        launch(node);
        await answering(node);
        return Date.now() - t;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
