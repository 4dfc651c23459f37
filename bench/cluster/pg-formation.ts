/**
 * A throwaway PostgreSQL formation managed by pg_auto_failover (Debian
 * `postgresql-15-auto-failover`): a monitor and two data nodes, a primary and a synchronous
 * standby, on free loopback ports, in a fresh temporary directory owned by the `postgres` OS
 * user. It never touches the machine's own PostgreSQL (its port, its data or its config).
 *
 * Standalone: `npx tsx bench/cluster/pg-formation.ts` creates one, prints its URI, node states
 * and replication settings, fails the primary over once, brings it back, and removes it all.
 */
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../support.js';
import {
  background,
  childrenOf,
  cleanUp,
  commandLine,
  isMain,
  onCleanup,
  run,
  signal,
  sleep,
  tail,
  until,
  type Background,
} from './proc.js';

const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * How quickly the formation gives up on a lost primary. pg_auto_failover's defaults take about
 * 50 s from a lost primary to a writable new one: 20 s before the monitor calls the node
 * unhealthy (node_considered_unhealthy_timeout), then up to 30 s waiting for the old primary to
 * say it has demoted itself (primary_demote_timeout), which a lost machine never says. The
 * reference deployment shortens both so that a failover completes in about 15 s.
 *
 * Safety does not rest on these timeouts: replication is synchronous, so an old primary that is
 * merely cut off cannot acknowledge a commit once its standby has been promoted (nothing
 * confirms the commit), and its keeper demotes it after network_partition_timeout without the
 * monitor or a standby. That last one is kept below unhealthy + demote (5 s + 10 s), so an
 * isolated old primary has stopped before the new one takes writes.
 */
export const FAST_FAILOVER = {
  monitor: {
    'pgautofailover.health_check_period': '1000',
    'pgautofailover.health_check_timeout': '2000',
    'pgautofailover.health_check_max_retries': '1',
    'pgautofailover.health_check_retry_delay': '500',
    'pgautofailover.node_considered_unhealthy_timeout': '5000',
    'pgautofailover.primary_demote_timeout': '10000',
  },
  keeper: { 'timeout.network_partition_timeout': '10' },
};

/**
 * How the primary is taken away.
 * - `kill`: SIGKILL to everything of that node at once: its pg_autoctl keeper, the postmaster
 *   and every backend. This is what a power cut or a kernel panic does: nothing on the node gets
 *   to react (no shutdown checkpoint, no word to the monitor, no self-demotion). Killing only the
 *   postmaster would not do: the keeper restarts PostgreSQL within a second and there is no
 *   failover; `pg_autoctl stop --immediate` is the keeper's own orderly act. One difference from
 *   a real lost machine remains: the kernel here still refuses connections to the dead port at
 *   once, so clients and the monitor learn of the loss sooner than over a network.
 * - `freeze`: SIGSTOP to the same processes: the machine hangs (or its network is cut) without
 *   the kernel resetting anything. Open connections go silent, new ones are accepted into the
 *   listen queue and never answered, so only the clients' own timeouts end their waits. Harder
 *   on KSP's connection handling; `startNode` then kills the frozen processes ("reboot").
 */
export type PrimaryFault = 'kill' | 'freeze';

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
  health: number;
}

export interface ReplicationReport {
  primary: string;
  synchronousStandbyNames: string;
  synchronousCommit: string;
  standbys: { application_name: string; state: string; sync_state: string }[];
  numberSyncStandbys: number;
  nodes: { name: string; replication_quorum: boolean; candidate_priority: number }[];
}

export interface FailoverReport {
  /** The node (1-based) that took over. */
  node: number;
  /** From the fault to the monitor assigning the standby its promotion, ms. */
  promotionStartedMs: number | null;
  /** From the fault to the new primary accepting a write (an insert on it), ms. */
  writableMs: number;
  /** Each change of the nodes' states the monitor reported, ms after the fault. */
  transitions: { ms: number; node: string; reported: string; assigned: string }[];
}

export interface Formation {
  dir: string;
  monitorPort: number;
  nodes: { name: string; port: number; pgdata: string }[];
  /** `pg_autoctl show uri --formation default`, as it prints it. */
  shownUri: string;
  /** The same URI for KSP: its user `ksp`, and sslmode=disable (the nodes run without TLS). */
  uri: string;
  /** One node's plain URL for KSP (user ksp, database ksp). */
  nodeUrl(n: number): string;
  timeouts: 'fast' | 'default';
  state(): Promise<NodeState[]>;
  /** The node (1-based) the monitor has as primary, or null while there is none. */
  primary(): Promise<number | null>;
  replication(): Promise<ReplicationReport>;
  /** One statement on the current primary, in KSP's database as KSP's role. */
  primarySql<T extends object>(statement: string, params?: unknown[]): Promise<T[]>;
  stopPrimary(fault?: PrimaryFault): Promise<{ node: number; at: number }>;
  waitForFailover(lost: { node: number; at: number }, timeoutMs?: number): Promise<FailoverReport>;
  /** Starts node `n` again and waits until it is a streaming synchronous standby; answers ms taken. */
  startNode(n: number, timeoutMs?: number): Promise<number>;
  /** Stops everything and removes the directory (after copying the logs to `keepLogs`). */
  destroy(): Promise<void>;
}

const client = (port: number, database: string, user = 'postgres') =>
  new pg.Client({
    host: '127.0.0.1',
    port,
    database,
    user,
    connectionTimeoutMillis: 2000,
    query_timeout: 3000,
  });

/** One statement on a fresh connection (loopback, trust). */
async function sql<T extends object>(
  port: number,
  database: string,
  statement: string,
  user = 'postgres',
  params: unknown[] = [],
): Promise<T[]> {
  const c = client(port, database, user);
  c.on('error', () => undefined);
  try {
    await c.connect();
    return (await c.query<T>(statement, params)).rows;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export interface FormationOptions {
  /** `fast` (default): FAST_FAILOVER; `default`: pg_auto_failover's own timeouts. */
  timeouts?: 'fast' | 'default';
  say?: (line: string) => void;
  /** A directory to copy the formation's logs (monitor, nodes) to when it is destroyed. */
  keepLogs?: string;
}

export async function createFormation(options: FormationOptions = {}): Promise<Formation> {
  const say = options.say ?? ((line: string) => console.log(line));
  const timeouts = options.timeouts ?? 'fast';
  const uid = Number((await run('id', ['-u', 'postgres'])).trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).trim());
  const dir = mkdtempSync(join(tmpdir(), 'ksp-pgaf-'));
  for (const sub of ['config', 'share', 'run', 'logs']) mkdirSync(join(dir, sub));
  for (const p of [dir, ...['config', 'share', 'run', 'logs'].map((s) => join(dir, s))])
    chownSync(p, uid, gid);

  // pg_autoctl keeps its state under XDG_CONFIG_HOME / XDG_DATA_HOME: inside the directory,
  // not in the postgres user's home. A clean environment, so nothing of ours (PGPORT, …) leaks in.
  const pgEnv = [
    `HOME=${dir}`,
    `XDG_CONFIG_HOME=${join(dir, 'config')}`,
    `XDG_DATA_HOME=${join(dir, 'share')}`,
    `XDG_RUNTIME_DIR=${join(dir, 'run')}`,
    `PATH=${PG_BIN}:/usr/bin:/bin`,
    'LANG=C.UTF-8',
  ];
  const autoctl = (args: string[]) => ['-u', 'postgres', '--', 'env', '-i', ...pgEnv, 'pg_autoctl', ...args];
  const pgctl = join(PG_BIN, 'pg_ctl');

  const monitorPort = await freePort();
  const nodes = [1, 2].map((i) => ({
    name: `node${i}`,
    port: 0,
    pgdata: join(dir, `node${i}`),
    log: join(dir, 'logs', `node${i}.log`),
    proc: null as Background | null,
    /** Processes stopped by a `freeze` fault, killed when the node is started again. */
    frozen: [] as number[],
  }));
  for (const node of nodes) node.port = await freePort();
  const monitorData = join(dir, 'monitor');
  const monitorLog = join(dir, 'logs', 'monitor.log');
  let monitor: Background | null = null;

  const logs = () =>
    [
      `--- monitor (${monitorLog}) ---\n${tail(monitorLog)}`,
      ...nodes.map((n) => `--- ${n.name} (${n.log}) ---\n${tail(n.log)}`),
    ].join('\n');

  /** Stops every process of a node (or the monitor) at once: its process group and its backends. */
  const stopProcesses = (proc: Background | null, pgdata: string, sig: NodeJS.Signals): number[] => {
    const pids: number[] = [];
    const postmaster = postmasterOf(pgdata);
    // Backends and auxiliary processes each lead a process group of their own (PostgreSQL
    // calls setsid() in every child): found through the postmaster, before it goes.
    const children = postmaster ? childrenOf(postmaster) : [];
    if (proc?.running()) {
      proc.signalGroup(sig);
      pids.push(-proc.pid);
    }
    if (postmaster) {
      signal(postmaster, sig);
      pids.push(postmaster);
    }
    for (const pid of children) {
      signal(pid, sig);
      pids.push(pid);
    }
    return pids;
  };

  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    const procs = [...nodes.map((n) => ({ proc: n.proc, pgdata: n.pgdata, frozen: n.frozen }))];
    procs.push({ proc: monitor, pgdata: monitorData, frozen: [] });
    for (const p of procs) {
      for (const pid of p.frozen) signal(pid, 'SIGKILL');
      stopProcesses(p.proc, p.pgdata, 'SIGKILL');
    }
    await Promise.race([Promise.all(procs.flatMap((p) => (p.proc ? [p.proc.exited] : []))), sleep(5000)]);
    if (options.keepLogs) {
      mkdirSync(options.keepLogs, { recursive: true });
      for (const f of readdirSync(join(dir, 'logs'))) {
        copyFileSync(join(dir, 'logs', f), join(options.keepLogs, `pg-${f}`));
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  onCleanup(destroy);

  const monitorSql = <T extends object>(statement: string) =>
    sql<T>(monitorPort, 'pg_auto_failover', statement);

  const state = async (): Promise<NodeState[]> => {
    const rows = await monitorSql<{
      nodename: string;
      nodeport: number;
      reportedstate: string;
      goalstate: string;
      health: number;
    }>(
      'select nodename, nodeport, reportedstate, goalstate, health from pgautofailover.node order by nodeid',
    );
    return rows.map((r) => ({
      name: r.nodename,
      port: r.nodeport,
      reported: r.reportedstate,
      assigned: r.goalstate,
      health: r.health,
    }));
  };
  const stateOr = async () => state().catch(() => [] as NodeState[]);
  const indexOf = (name: string) => nodes.findIndex((n) => n.name === name) + 1;
  const writerStates = new Set(['primary', 'wait_primary', 'single']);
  const primary = async () => {
    const s = await stateOr();
    const p = s.find((n) => writerStates.has(n.reported) && n.assigned === n.reported);
    return p ? indexOf(p.name) : null;
  };

  /**
   * pg_autoctl builds a standby with pg_basebackup, which first waits for a checkpoint on the
   * primary, and a requested checkpoint is spread over checkpoint_timeout × 0.9 (minutes on an
   * idle primary). A CHECKPOINT on the primary while a standby is catching up completes it at once.
   */
  const nudge = async (s: NodeState[]) => {
    if (!s.some((n) => n.reported === 'wait_standby' || n.reported === 'catchingup')) return;
    const p = s.find((n) => writerStates.has(n.reported));
    if (p) await sql(p.port, 'postgres', 'checkpoint').catch(() => undefined);
  };

  const waitStates = async (what: string, ok: (s: NodeState[]) => boolean, timeoutMs: number) => {
    let last: NodeState[] = [];
    let nudged = 0;
    const reached = await until(
      async () => {
        last = await stateOr();
        if (ok(last)) return true;
        if (Date.now() - nudged > 2000) {
          nudged = Date.now();
          await nudge(last);
        }
        return false;
      },
      timeoutMs,
      250,
    );
    if (!reached) {
      throw new Error(
        `pg_auto_failover: ${what} not reached within ${timeoutMs / 1000} s; node states: ${JSON.stringify(last)}\n${logs()}`,
      );
    }
  };

  const runNode = (i: number, args: string[]) => {
    const node = nodes[i - 1]!;
    node.proc = background(node.name, 'runuser', autoctl(args), node.log);
  };

  try {
    const t0 = Date.now();
    say(
      `pg_auto_failover formation in ${dir} (monitor :${monitorPort}, nodes :${nodes.map((n) => n.port).join(', :')})`,
    );
    await run(
      'runuser',
      autoctl([
        'create',
        'monitor',
        '--pgdata',
        monitorData,
        '--pgport',
        String(monitorPort),
        '--hostname',
        '127.0.0.1',
        '--auth',
        'trust',
        '--no-ssl',
        '--pgctl',
        pgctl,
      ]),
    );
    // The monitor has no --listen: it would listen on every address ('*'). Loopback only.
    await run(
      'runuser',
      autoctl(['config', 'set', '--pgdata', monitorData, 'postgresql.listen_addresses', '127.0.0.1']),
    );
    monitor = background('monitor', 'runuser', autoctl(['run', '--pgdata', monitorData]), monitorLog);
    if (
      !(await until(
        () =>
          monitorSql('select 1 from pgautofailover.node limit 1').then(
            () => true,
            () => false,
          ),
        30_000,
      ))
    ) {
      throw new Error(`the pg_auto_failover monitor did not start\n${logs()}`);
    }
    if (timeouts === 'fast') {
      for (const [name, value] of Object.entries(FAST_FAILOVER.monitor)) {
        await monitorSql(`alter system set ${name} = '${value}'`);
      }
      await monitorSql('select pg_reload_conf()');
    }
    const monitorUri = (
      await run('runuser', autoctl(['show', 'uri', '--pgdata', monitorData, '--formation', 'monitor']))
    ).trim();

    const createNode = (i: number) =>
      runNode(i, [
        'create',
        'postgres',
        '--pgdata',
        nodes[i - 1]!.pgdata,
        '--pgport',
        String(nodes[i - 1]!.port),
        '--listen',
        '127.0.0.1',
        '--hostname',
        '127.0.0.1',
        '--name',
        nodes[i - 1]!.name,
        '--monitor',
        monitorUri,
        '--auth',
        'trust',
        '--no-ssl',
        '--dbname',
        'ksp',
        '--pgctl',
        pgctl,
        '--run',
      ]);
    createNode(1);
    await waitStates(
      'node1 single',
      (s) => s.some((n) => n.name === 'node1' && n.reported === 'single'),
      60_000,
    );
    createNode(2);
    await waitStates(
      'one primary and one secondary',
      (s) =>
        s.some((n) => n.reported === 'primary' && n.assigned === 'primary') &&
        s.some((n) => n.reported === 'secondary' && n.assigned === 'secondary'),
      120_000,
    );
    if (timeouts === 'fast') {
      for (const node of nodes) {
        for (const [name, value] of Object.entries(FAST_FAILOVER.keeper)) {
          await run('runuser', autoctl(['config', 'set', '--pgdata', node.pgdata, name, value]));
        }
      }
    }
    const p = nodes[(await primary())! - 1]!;
    // KSP's own role, owning its database and schema (it creates its tables at start).
    await sql(p.port, 'ksp', 'create role ksp login');
    await sql(p.port, 'ksp', 'alter database ksp owner to ksp');
    await sql(p.port, 'ksp', 'alter schema public owner to ksp');
    // Where waitForFailover tries its writes: outside KSP's database.
    await sql(p.port, 'postgres', 'create table failover_probe (at timestamptz)');
    const shownUri = (
      await run('runuser', autoctl(['show', 'uri', '--pgdata', monitorData, '--formation', 'default']))
    ).trim();
    say(`formation up in ${((Date.now() - t0) / 1000).toFixed(1)} s; pg_autoctl show uri: ${shownUri}`);

    const formation: Formation = {
      dir,
      monitorPort,
      nodes: nodes.map((n) => ({ name: n.name, port: n.port, pgdata: n.pgdata })),
      shownUri,
      uri: kspUri(shownUri),
      nodeUrl: (n) => `postgres://ksp@127.0.0.1:${nodes[n - 1]!.port}/ksp`,
      timeouts,
      state,
      primary,
      async replication() {
        const n = await primary();
        if (!n) throw new Error('no primary');
        const port = nodes[n - 1]!.port;
        const [names] = await sql<{ synchronous_standby_names: string }>(
          port,
          'postgres',
          'show synchronous_standby_names',
        );
        const [commit] = await sql<{ synchronous_commit: string }>(
          port,
          'postgres',
          'show synchronous_commit',
        );
        const standbys = await sql<ReplicationReport['standbys'][number]>(
          port,
          'postgres',
          'select application_name, state, sync_state from pg_stat_replication order by application_name',
        );
        const [formationRow] = await monitorSql<{ number_sync_standbys: number }>(
          "select number_sync_standbys from pgautofailover.formation where formationid = 'default'",
        );
        const quorum = await monitorSql<ReplicationReport['nodes'][number]>(
          'select nodename as name, replicationquorum as replication_quorum, candidatepriority as candidate_priority from pgautofailover.node order by nodeid',
        );
        return {
          primary: nodes[n - 1]!.name,
          synchronousStandbyNames: names?.synchronous_standby_names ?? '',
          synchronousCommit: commit?.synchronous_commit ?? '',
          standbys,
          numberSyncStandbys: formationRow?.number_sync_standbys ?? -1,
          nodes: quorum,
        };
      },
      async primarySql<T extends object>(statement: string, params: unknown[] = []) {
        const n = await primary();
        if (!n) throw new Error('no primary');
        return sql<T>(nodes[n - 1]!.port, 'ksp', statement, 'ksp', params);
      },
      async stopPrimary(fault: PrimaryFault = 'kill') {
        const n = await primary();
        if (!n) throw new Error('stopPrimary: there is no primary to stop');
        const node = nodes[n - 1]!;
        const at = Date.now();
        const pids = stopProcesses(node.proc, node.pgdata, fault === 'kill' ? 'SIGKILL' : 'SIGSTOP');
        if (fault === 'freeze') node.frozen = pids;
        return { node: n, at };
      },
      async waitForFailover(lost, timeoutMs = 90_000) {
        const transitions: FailoverReport['transitions'] = [];
        const seen = new Map<string, string>();
        let promotionStartedMs: number | null = null;
        const promoting = new Set(['prepare_promotion', 'stop_replication', 'wait_primary', 'primary']);
        let result: FailoverReport | null = null;
        const reached = await until(
          async () => {
            const now = Date.now() - lost.at;
            for (const s of await stateOr()) {
              const key = `${s.reported}/${s.assigned}`;
              if (seen.get(s.name) !== key) {
                seen.set(s.name, key);
                transitions.push({ ms: now, node: s.name, reported: s.reported, assigned: s.assigned });
              }
              if (promotionStartedMs === null && indexOf(s.name) !== lost.node && promoting.has(s.assigned)) {
                promotionStartedMs = now;
              }
            }
            // The first write the new primary takes: an insert fails both in recovery and under
            // default_transaction_read_only (pg_auto_failover's guard until the old primary is
            // known to be gone).
            for (const [i, node] of nodes.entries()) {
              if (i + 1 === lost.node) continue;
              const wrote = await sql(
                node.port,
                'postgres',
                'insert into failover_probe values (now())',
              ).then(
                () => true,
                () => false,
              );
              if (wrote) {
                result = { node: i + 1, promotionStartedMs, writableMs: Date.now() - lost.at, transitions };
                return true;
              }
            }
            return false;
          },
          timeoutMs,
          200,
        );
        if (!reached || !result) {
          throw new Error(
            `no failover within ${timeoutMs / 1000} s; transitions: ${JSON.stringify(transitions)}\n${logs()}`,
          );
        }
        return result;
      },
      async startNode(n, timeoutMs = 90_000) {
        const node = nodes[n - 1]!;
        const t = Date.now();
        if (node.frozen.length) {
          for (const pid of node.frozen) signal(pid, 'SIGKILL');
          node.frozen = [];
        }
        if (node.proc?.running()) {
          node.proc.signalGroup('SIGKILL');
          await node.proc.exited;
        }
        runNode(n, ['run', '--pgdata', node.pgdata]);
        await waitStates(
          `${node.name} back as secondary`,
          (s) =>
            s.some((x) => x.name === node.name && x.reported === 'secondary' && x.assigned === 'secondary') &&
            s.some((x) => x.reported === 'primary' && x.assigned === 'primary'),
          timeoutMs,
        );
        return Date.now() - t;
      },
      destroy,
    };
    return formation;
  } catch (err) {
    await destroy();
    throw err;
  }
}

/** The postmaster's pid from its pid file, if that process is still this data directory's. */
function postmasterOf(pgdata: string): number | null {
  try {
    const pid = Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 && commandLine(pid).includes(pgdata) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * pg_autoctl prints `postgres://h1:p1,h2:p2/db?target_session_attrs=read-write&sslmode=prefer`.
 * KSP connects as its own role; and node-postgres reads `sslmode=prefer` (and `require`) as
 * `verify-full`, which a node without TLS (--no-ssl) refuses: it gets `sslmode=disable`.
 */
export function kspUri(shown: string): string {
  const withUser = shown.replace(/^postgres(ql)?:\/\//, 'postgres://ksp@');
  return withUser.replace(/([?&])sslmode=[^&]*/, '$1sslmode=disable');
}

/* ---- standalone: one formation, one failover, one rejoin ---- */

if (isMain(import.meta.url)) {
  (async () => {
    const t0 = Date.now();
    const f = await createFormation({
      timeouts: process.env.BENCH_PG_TIMEOUTS === 'default' ? 'default' : 'fast',
    });
    console.log(`KSP URI: ${f.uri}`);
    console.table(await f.state());
    console.log(JSON.stringify(await f.replication(), null, 2));
    const fault = (process.env.BENCH_PG_FAULT as PrimaryFault | undefined) ?? 'kill';
    const lost = await f.stopPrimary(fault);
    console.log(`${fault}: node${lost.node} (the primary)`);
    const failover = await f.waitForFailover(lost);
    for (const t of failover.transitions)
      console.log(
        `  +${(t.ms / 1000).toFixed(1)} s ${t.node}: reported ${t.reported}, assigned ${t.assigned}`,
      );
    console.log(`node${failover.node} writable ${(failover.writableMs / 1000).toFixed(1)} s after the fault`);
    console.log(JSON.stringify(await f.replication(), null, 2));
    const back = await f.startNode(lost.node);
    console.log(`node${lost.node} back as secondary in ${(back / 1000).toFixed(1)} s`);
    console.log(JSON.stringify(await f.replication(), null, 2));
    console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  })()
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => cleanUp());
}
