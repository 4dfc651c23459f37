/**
 * The cluster fault test: three KSP nodes behind HAProxy on a pg_auto_failover formation (a
 * primary and a synchronous standby), a steady mixed load through HAProxy, and two faults: one
 * KSP node killed (-9) and brought back, then the PostgreSQL primary lost. It prints what the
 * clients saw (requests by kind, by HTTP status and KSP code, the longest time without any
 * successful answer around each fault) and checks that every key whose creation was answered
 * code 0 is still there afterwards ("lost acknowledged writes", which must be 0).
 *
 *   npm run build -w packages/contracts && npm run build -w apps/server
 *   npm run bench:cluster -w bench                    # 3 nodes behind HAProxy
 *   npm run bench:cluster -w bench -- --nodes 1       # one node, no HAProxy: 503 + Retry-After
 *
 * Options: --nodes N (3), --pg-fault kill|freeze (kill; see PrimaryFault in pg-formation.ts),
 * --pg-timeouts fast|default (fast; FAST_FAILOVER), --haproxy-mode http|tcp (http: HAProxy
 * speaks HTTP to the nodes and retries what is safe; tcp: passthrough as in docs/cluster.md, see
 * haproxy.ts). Environment: BENCH_CLUSTER_CHECK (the
 * HAProxy health check path; default /v1/ksp/system/ready, or /v1/ksp/system/status on a server
 * that has no readiness path yet), BENCH_CLUSTER_URL=multi|single (the database URL given to
 * KSP: pg_auto_failover's multi-host URI, or the current primary alone; default multi, falling
 * back to single, loudly, when the server refuses the multi-host URI), BENCH_CLUSTER_KMIP=0 (no
 * KMIP listeners and no TCP frontend), BENCH_CLUSTER_KEEP_LOGS=<dir> (every process's log is
 * copied there), KSP_LOG_LEVEL (the nodes'; warn).
 *
 * Run as root (the formation runs as the postgres OS user). Takes about two and a half minutes.
 * Prints figures; its exit code is 1 if the run could not be carried out or if an acknowledged
 * write was lost.
 */
import { measureCoherence } from './coherence.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { parseArgs } from 'node:util';
import { api as contract } from '@ksp/contracts';
import { BENCH_USER, api, root } from '../support.js';
import { LIVE_PATH, READY_PATH, startHaproxy, type Haproxy } from './haproxy.js';
import { startKspNodes } from './ksp-nodes.js';
import {
  createFormation,
  type FailoverReport,
  type Formation,
  type PrimaryFault,
  type ReplicationReport,
} from './pg-formation.js';
import { cleanUp, sleep } from './proc.js';
import { makeSelfSignedEc } from '../../tools/ukey-bridge/src/self-signed.js';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '3' },
    'pg-fault': { type: 'string', default: 'kill' },
    'pg-timeouts': { type: 'string', default: 'fast' },
    'haproxy-mode': { type: 'string', default: 'http' },
  },
});
const HAPROXY_MODE = args['haproxy-mode'] === 'tcp' ? 'tcp' : 'http';
const NODES = Number(args.nodes);
const PG_FAULT = args['pg-fault'] as PrimaryFault;
const PG_TIMEOUTS = args['pg-timeouts'] === 'default' ? 'default' : 'fast';
if (!(NODES >= 1 && NODES <= 9) || !['kill', 'freeze'].includes(PG_FAULT)) {
  console.error(
    'usage: fault-test.ts [--nodes 1..9] [--pg-fault kill|freeze] [--pg-timeouts fast|default] [--haproxy-mode http|tcp]',
  );
  process.exit(2);
}
const KMIP = process.env.BENCH_CLUSTER_KMIP !== '0' && NODES > 1;
/** Each load loop sends one request, waits for its answer, then waits out the rest of this. */
const INTERVAL_MS = Number(process.env.BENCH_CLUSTER_INTERVAL_MS ?? 50);
const REQUEST_TIMEOUT_MS = 15_000;
const PHASE_MS = 10_000;
const AFTER_FAILOVER_MS = 20_000;
/** The load: loops per kind of request. */
const LOOPS = { create: 2, encrypt: 2, sign: 2, login: 1 } as const;
type Kind = keyof typeof LOOPS;

/** BENCH_CLUSTER_KEEP_LOGS=<dir>: every process's log is copied there at the end. */
const keepLogs = process.env.BENCH_CLUSTER_KEEP_LOGS ? { keepLogs: process.env.BENCH_CLUSTER_KEEP_LOGS } : {};
/** Behind HAProxy the nodes take the client's address from X-Forwarded-For (docs/cluster.md). */
const behindProxy = NODES > 1 ? { env: { KSP_TRUST_PROXY: 'true' } } : {};
const t0 = Date.now();
const at = (t: number) => `+${((t - t0) / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(`[${at(Date.now())}] ${line}`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/* ---- the load ---- */

interface Sample {
  kind: Kind;
  start: number;
  end: number;
  /** HTTP status, or `network` (no answer: connection refused or reset) or `timeout`. */
  status: number | 'network' | 'timeout';
  code: number | null;
  retryAfter: string | null;
  node: string | null;
  /** Why there was no answer (`network`, `timeout`): the client's error code. */
  error?: string;
  /** Key creation: the name asked for and, when answered code 0, the key's id. */
  name?: string;
  keyId?: string;
}
const ok = (s: Sample) => s.status === 200 && s.code === 0;

class Load {
  samples: Sample[] = [];
  private stopped = false;
  private loops: Promise<void>[] = [];
  constructor(
    private base: string,
    private token: string,
    private keys: { aes: string; ec: string },
    readonly tag: string,
  ) {}

  start() {
    for (const [kind, count] of Object.entries(LOOPS) as [Kind, number][]) {
      for (let i = 0; i < count; i++) this.loops.push(this.loop(kind, i));
    }
  }

  async stop() {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private request(kind: Kind, loop: number, seq: number): { path: string; body: unknown; name?: string } {
    switch (kind) {
      case 'create': {
        const name = `${this.tag}-${loop}-${seq}`;
        return { path: contract.key.create.path, body: { name, algorithm: 'AES-256', usage_mask: 12 }, name };
      }
      case 'encrypt':
        return {
          path: contract.crypto.encrypt.path,
          body: { key_id: this.keys.aes, plaintext: randomBytes(64).toString('base64') },
        };
      case 'sign':
        return {
          path: contract.crypto.sign.path,
          body: { key_id: this.keys.ec, data: randomBytes(64).toString('base64') },
        };
      case 'login':
        return {
          path: contract.user.login.path,
          body: {
            username: Buffer.from(BENCH_USER.username).toString('base64'),
            password: createHash('sha256').update(BENCH_USER.password).digest('base64'),
          },
        };
    }
  }

  private async loop(kind: Kind, loop: number) {
    for (let seq = 0; !this.stopped; seq++) {
      const started = Date.now();
      const r = this.request(kind, loop, seq);
      const sample: Sample = {
        kind,
        start: started,
        end: 0,
        status: 'network',
        code: null,
        retryAfter: null,
        node: null,
        ...(r.name ? { name: r.name } : {}),
      };
      try {
        const res = await fetch(this.base + r.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(kind === 'login' ? {} : { token: this.token }) },
          body: JSON.stringify(r.body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        sample.status = res.status;
        sample.retryAfter = res.headers.get('retry-after');
        sample.node = res.headers.get('x-ksp-node');
        const text = await res.text();
        try {
          const json = JSON.parse(text) as { code?: unknown; data?: { id?: unknown } | null };
          sample.code = typeof json.code === 'number' ? json.code : null;
          if (kind === 'create' && json.code === 0 && typeof json.data?.id === 'string')
            sample.keyId = json.data.id;
        } catch {
          // Not an envelope (e.g. a proxy's HTML error page): status only.
        }
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } };
        sample.status = e.name === 'TimeoutError' ? 'timeout' : 'network';
        sample.error = e.cause?.code ?? e.cause?.message ?? e.message;
      }
      sample.end = Date.now();
      this.samples.push(sample);
      const rest = INTERVAL_MS - (Date.now() - started);
      if (rest > 0 && !this.stopped) await sleep(rest);
    }
  }
}

/* ---- figures ---- */

/** The longest time in [from, to] without a successful answer (from the window's start to the first, …, the last to its end). */
function longestGap(samples: Sample[], from: number, to: number) {
  const ends = samples
    .filter((s) => ok(s) && s.end >= from && s.end <= to)
    .map((s) => s.end)
    .sort((a, b) => a - b);
  let gap = { ms: to - from, from, to };
  if (!ends.length) return { ...gap, none: true };
  gap = { ms: ends[0]! - from, from, to: ends[0]! };
  for (let i = 1; i < ends.length; i++) {
    if (ends[i]! - ends[i - 1]! > gap.ms)
      gap = { ms: ends[i]! - ends[i - 1]!, from: ends[i - 1]!, to: ends[i]! };
  }
  if (to - ends.at(-1)! > gap.ms) gap = { ms: to - ends.at(-1)!, from: ends.at(-1)!, to };
  return { ...gap, none: false };
}

function table(header: string[], rows: (string | number)[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((c, i) => (typeof c === 'number' ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function countsTable(samples: Sample[]): string {
  const kinds = Object.keys(LOOPS) as Kind[];
  const rows: (string | number)[][] = kinds.map((k) => {
    const s = samples.filter((x) => x.kind === k);
    const answered = s.filter((x) => typeof x.status === 'number');
    return [k, s.length, answered.length, s.filter(ok).length, s.length - s.filter(ok).length];
  });
  const all = samples.filter((x) => typeof x.status === 'number');
  rows.push([
    'all',
    samples.length,
    all.length,
    samples.filter(ok).length,
    samples.length - samples.filter(ok).length,
  ]);
  return table(['kind', 'sent', 'answered (HTTP)', 'succeeded (200, code 0)', 'failed'], rows);
}

function outcomesTable(samples: Sample[]): string {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    const key = `${s.status}${s.error ? ` (${s.error})` : ''} / ${s.code ?? '—'}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows = [...groups.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([key, s]) => {
      const byKind = (Object.keys(LOOPS) as Kind[])
        .map((k) => [k, s.filter((x) => x.kind === k).length] as const)
        .filter(([, n]) => n)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      const ra = s.filter((x) => x.retryAfter !== null).length;
      return [key, s.length, byKind, s[0]!.status === 503 ? `${ra} of ${s.length}` : ''];
    });
  return table(['HTTP status / KSP code', 'count', 'by kind', 'with Retry-After'], rows);
}

function gapsTable(samples: Sample[], windows: { label: string; from: number; to: number }[]): string {
  const kinds = Object.keys(LOOPS) as Kind[];
  return table(
    ['window', 'length', 'any request', ...kinds],
    windows.map((w) => {
      const g = longestGap(samples, w.from, w.to);
      return [
        w.label,
        secs(w.to - w.from),
        `${secs(g.ms)} (${at(g.from)} → ${at(g.to)})`,
        ...kinds.map((k) => {
          const gk = longestGap(
            samples.filter((s) => s.kind === k),
            w.from,
            w.to,
          );
          return gk.none ? `none answered` : secs(gk.ms);
        }),
      ];
    }),
  );
}

function replicationLine(r: ReplicationReport): string {
  const standbys = r.standbys
    .map((s) => `${s.application_name} ${s.state} sync_state=${s.sync_state}`)
    .join('; ');
  return `primary ${r.primary}: synchronous_standby_names = '${r.synchronousStandbyNames}', synchronous_commit = ${r.synchronousCommit}, number_sync_standbys = ${r.numberSyncStandbys}; standbys: ${standbys || 'none'}`;
}

function failoverLines(f: FailoverReport): string[] {
  return [
    `  promotion assigned ${f.promotionStartedMs === null ? '?' : secs(f.promotionStartedMs)} after the fault; node${f.node} took a write ${secs(f.writableMs)} after`,
    ...f.transitions.map(
      (t) => `    +${secs(t.ms)} ${t.node}: reported ${t.reported}, assigned ${t.assigned}`,
    ),
  ];
}

/** HAProxy's server state changes from its log ("Server ksp_nodes/ksp-1 is DOWN …"). */
function haproxyTransitions(log: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    // The ISO-stamped lines of `log stderr format iso` (HAProxy also prints each on its own).
    const m =
      /^(\d{4}-\d\d-\d\dT\S+) .*(Server ksp_nodes\/\S+ is (?:UP|DOWN)|backend ksp_nodes has no server available)/.exec(
        line,
      );
    const reason = /reason: ([^,]+)/.exec(line)?.[1];
    if (m) out.push(`  ${at(Date.parse(m[1]!))} ${m[2]}${reason ? ` (${reason})` : ''}`);
  }
  return out;
}

/* ---- setup ---- */

async function kmipMaterial(dir: string) {
  const cert = join(dir, 'kmip.pem');
  const key = join(dir, 'kmip.key');
  await makeSelfSignedEc({ key, cert, cn: 'ksp-kmip', days: 1 });
  return { cert, key };
}

/** A TLS handshake through HAProxy's KMIP frontend: a node's KMIP listener answered. */
function kmipHandshake(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, timeout: 5000 });
    s.once('secureConnect', () => {
      const cn = s.getPeerCertificate().subject?.CN;
      const answer = `${s.getProtocol()}, server certificate CN=${Array.isArray(cn) ? cn.join(',') : (cn ?? '?')}`;
      s.destroy();
      resolve(answer);
    });
    s.once('timeout', () => {
      s.destroy();
      reject(new Error('timeout'));
    });
    s.once('error', reject);
  });
}

async function startNodes(formation: Formation, kmip: { cert: string; key: string } | undefined) {
  const mode = process.env.BENCH_CLUSTER_URL ?? 'multi';
  const single = async (why: string) => {
    const p = await formation.primary();
    const url = formation.nodeUrl(p!);
    say(`database URL for KSP: ${url} (${why}; KSP will not follow a failover)`);
    return {
      cluster: await startKspNodes({
        count: NODES,
        databaseUrl: url,
        say,
        ...keepLogs,
        ...behindProxy,
        ...(kmip ? { kmip } : {}),
      }),
      url,
      multi: false,
    };
  };
  if (mode === 'single') return single('BENCH_CLUSTER_URL=single');
  try {
    say(`database URL for KSP: ${formation.uri}`);
    return {
      cluster: await startKspNodes({
        count: NODES,
        databaseUrl: formation.uri,
        say,
        ...keepLogs,
        ...behindProxy,
        ...(kmip ? { kmip } : {}),
      }),
      url: formation.uri,
      multi: true,
    };
  } catch (err) {
    const first = String((err as Error).message)
      .split('\n')
      .slice(0, 1)
      .join('');
    console.warn(`\n!!! KSP refused the multi-host URI (${first}).`);
    console.warn(
      '!!! Falling back to the current primary alone: the database failover will not be followed.\n',
    );
    return single('fallback');
  }
}

/* ---- the run ---- */

async function main() {
  say(
    `cluster fault test: ${NODES} KSP node(s)${NODES > 1 ? ` behind HAProxy (${HAPROXY_MODE})` : ', no HAProxy'}, PostgreSQL fault: ${PG_FAULT}, pg_auto_failover timeouts: ${PG_TIMEOUTS}`,
  );
  const formation = await createFormation({ timeouts: PG_TIMEOUTS, say, ...keepLogs });
  const replicationBefore = await formation.replication();
  say(`replication: ${replicationLine(replicationBefore)}`);
  const kmip = KMIP ? await kmipMaterial(formation.dir) : undefined;
  const { cluster, url, multi } = await startNodes(formation, kmip);

  let checkPath = process.env.BENCH_CLUSTER_CHECK ?? READY_PATH;
  const ready = await fetch(cluster.nodes[0]!.base + checkPath);
  await ready.arrayBuffer();
  if (ready.status === 404 && !process.env.BENCH_CLUSTER_CHECK) {
    checkPath = contract.system.status.path;
    console.warn(
      `\n!!! ${READY_PATH} answers 404 on this build: HAProxy checks ${checkPath} instead (it reads the database but does not prove a write).\n`,
    );
  }
  const live = await fetch(cluster.nodes[0]!.base + LIVE_PATH);
  await live.arrayBuffer();
  const hasLive = live.status !== 404;
  let proxy: Haproxy | null = null;
  let base = cluster.nodes[0]!.base;
  if (NODES > 1) {
    proxy = await startHaproxy({
      dir: cluster.dir,
      backends: cluster.nodes.map((n) => ({ name: n.name, port: n.port, kmipPort: n.kmipPort })),
      checkPath,
      mode: HAPROXY_MODE,
      ...keepLogs,
      livePath: hasLive ? LIVE_PATH : null,
    });
    if (!(await proxy.allUp()))
      throw new Error(`HAProxy: not every node is UP: ${JSON.stringify(await proxy.servers())}`);
    base = proxy.base;
    say(
      `HAProxy on ${proxy.base} (check GET ${checkPath}), every node UP${proxy.kmipPort ? `; KMIP passthrough :${proxy.kmipPort}` : ''}`,
    );
    if (proxy.kmipPort) say(`KMIP through HAProxy: ${await kmipHandshake(proxy.kmipPort)}`);
  }

  const token = cluster.token;
  // Before any fault: how long a change made on one node takes to be refused on another.
  const coherence =
    cluster.nodes.length >= 2
      ? await measureCoherence(cluster.nodes[0]!.base, cluster.nodes[1]!.base, token)
      : [];
  for (const c of coherence)
    say(
      `coherence: ${c.change}: refused on the other node after ${c.ms === null ? 'more than 10 s' : `${c.ms} ms`}`,
    );
  const key = async (name: string, algorithm: string, usage_mask: number) =>
    (await api<{ id: string }>(base, contract.key.create.path, { name, algorithm, usage_mask }, token)).id;
  const keys = { aes: await key('fault-aes', 'AES-256', 12), ec: await key('fault-ec', 'EC-P256', 3) };
  const load = new Load(base, token, keys, `ft${Date.now().toString(36)}`);
  const events: { at: number; label: string }[] = [];
  const mark = (label: string, t = Date.now()) => {
    events.push({ at: t, label });
    say(label);
  };

  const pidBefore = cluster.nodes[0]!.proc!.pid;
  let failover: FailoverReport | null = null;
  let failoverError: string | null = null;
  let killAt = 0;
  let backAt = 0;
  let pgLost = { node: 0, at: 0 };
  let loadEnd: number;
  const killed = 1;
  mark(
    `load started (${Object.entries(LOOPS)
      .map(([k, n]) => `${n}×${k}`)
      .join(', ')}; one request per loop every ≥ ${INTERVAL_MS} ms)`,
  );
  load.start();
  try {
    await sleep(PHASE_MS);
    if (NODES > 1) {
      killAt = cluster.kill9(killed);
      mark(`kill -9 ${cluster.nodes[killed - 1]!.name}`, killAt);
      await sleep(PHASE_MS);
      const t = Date.now();
      mark(`${cluster.nodes[killed - 1]!.name} starting again`, t);
      const restartMs = await cluster.restart(killed);
      backAt = t + restartMs;
      mark(`${cluster.nodes[killed - 1]!.name} answering (${secs(restartMs)} after its start)`, backAt);
      await sleep(PHASE_MS);
    }
    pgLost = await formation.stopPrimary(PG_FAULT);
    mark(`PostgreSQL primary node${pgLost.node} lost (${PG_FAULT})`, pgLost.at);
    try {
      failover = await formation.waitForFailover(pgLost);
      mark(`failover: node${failover.node} took a write ${secs(failover.writableMs)} after the fault`);
    } catch (err) {
      failoverError = (err as Error).message.split('\n')[0]!;
      mark(`no failover: ${failoverError}`);
    }
    await sleep(AFTER_FAILOVER_MS);
  } finally {
    loadEnd = Date.now();
    await load.stop();
    mark('load stopped');
  }
  const samples = load.samples;

  /* lost acknowledged writes: every key answered code 0 must be listed */
  const acked = samples.filter((s) => s.kind === 'create' && ok(s) && s.keyId);
  const listed = new Map<string, string>();
  let verifyError: string | null;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      listed.clear();
      for (let page = 1; ; page++) {
        const res = await api<{ data: { id: string; name: string }[] }>(
          base,
          `${contract.key.list.path}?name_prefix=${load.tag}-&page_size=1000&page=${page}`,
          undefined,
          token,
        );
        for (const k of res.data) listed.set(k.id, k.name);
        if (res.data.length < 1000) break;
      }
      verifyError = null;
      break;
    } catch (err) {
      verifyError = (err as Error).message;
      if (Date.now() > deadline) break;
      await sleep(1000);
    }
  }
  const lostApi = acked.filter((s) => !listed.has(s.keyId!));
  // The same question asked of the database itself (the primary, read directly), which also
  // answers when KSP cannot (a server that did not follow the failover).
  let inDatabase: Map<string, string> | null = null;
  let databaseError: string | null = null;
  try {
    const rows = await formation.primarySql<{ id: string; name: string }>(
      'select id, name from kms_key where name like $1',
      [`${load.tag}-%`],
    );
    inDatabase = new Map(rows.map((r) => [r.id, r.name]));
  } catch (err) {
    databaseError = (err as Error).message;
  }
  const lostDb = inDatabase ? acked.filter((s) => !inDatabase.has(s.keyId!)) : null;
  const ackedNames = new Set(acked.map((s) => s.name));
  const present = verifyError ? inDatabase : listed;
  const unacknowledgedPresent = present ? [...present.values()].filter((n) => !ackedNames.has(n)) : [];

  /*
   * Each node on its own, after the run: one of each kind of request straight to it (not
   * through HAProxy), so that a node that answers its readiness check but hangs or fails real
   * calls is seen.
   */
  const afterwards: string[] = [];
  for (const node of cluster.nodes) {
    const results: string[] = [];
    for (const [kind, path, body] of [
      [
        'encrypt',
        contract.crypto.encrypt.path,
        { key_id: keys.aes, plaintext: randomBytes(16).toString('base64') },
      ],
      ['sign', contract.crypto.sign.path, { key_id: keys.ec, data: randomBytes(16).toString('base64') }],
      [
        'create',
        contract.key.create.path,
        { name: `${load.tag}-after-${node.name}`, algorithm: 'AES-256', usage_mask: 12 },
      ],
    ] as const) {
      const started = Date.now();
      try {
        const res = await fetch(node.base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', token },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        });
        const json = (await res.json()) as { code?: number };
        results.push(`${kind} ${res.status}/${json.code ?? '?'} in ${Date.now() - started} ms`);
      } catch (err) {
        results.push(
          `${kind} ${(err as Error).name === 'TimeoutError' ? 'no answer within 5 s' : (err as Error).message}`,
        );
      }
    }
    afterwards.push(`  ${node.name}: ${results.join(', ')}`);
  }

  /* the old primary back as a standby */
  let rejoinMs: number | null = null;
  let replicationAfter: ReplicationReport | null = null;
  if (failover) {
    try {
      rejoinMs = await formation.startNode(pgLost.node);
      replicationAfter = await formation.replication();
    } catch (err) {
      say(`node${pgLost.node} did not come back: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const pidAfter = cluster.nodes[0]!.proc!.pid;

  /* ---- the report ---- */
  const out: string[] = [];
  const p = (line = '') => out.push(line);
  p();
  p(
    `## Cluster fault test: ${NODES} KSP node(s)${proxy ? ` behind HAProxy (mode ${HAPROXY_MODE})` : ' (no HAProxy)'}, PostgreSQL ${PG_FAULT}`,
  );
  p();
  p(
    `Load: ${Object.entries(LOOPS)
      .map(([k, n]) => `${n} ${k} loop(s)`)
      .join(
        ', ',
      )}, each sending its next request ≥ ${INTERVAL_MS} ms after the last one started, for ${secs(loadEnd - events[0]!.at)}. Database URL given to KSP: \`${url}\`${multi ? '' : ' (single host: no failover possible for KSP)'}.${proxy ? ` HAProxy check: \`GET ${checkPath}\`.` : ''}`,
  );
  p();
  p('Timeline:');
  for (const e of events) p(`  ${at(e.at)} ${e.label}`);
  p();
  p(countsTable(samples));
  p();
  p(outcomesTable(samples));
  p();
  const windows: { label: string; from: number; to: number }[] = [];
  if (NODES > 1) {
    windows.push({ label: 'KSP node killed → started again', from: killAt, to: backAt });
    windows.push({ label: 'KSP node back → database fault', from: backAt, to: pgLost.at });
    windows.push({ label: 'KSP node killed → database fault (goal ≤ 5 s)', from: killAt, to: pgLost.at });
  }
  windows.push({ label: 'database fault → end (goal ≤ 30 s)', from: pgLost.at, to: loadEnd });
  p('Longest time without a successful answer:');
  p(gapsTable(samples, windows));
  const firstOkAfter = (kind: Kind | null) =>
    samples
      .filter((s) => ok(s) && s.start >= pgLost.at && (!kind || s.kind === kind))
      .reduce((m, s) => Math.min(m, s.end), Infinity);
  const firstWrite = firstOkAfter('create');
  p();
  p(
    `First key created after the database fault: ${Number.isFinite(firstWrite) ? `${secs(firstWrite - pgLost.at)} after it` : 'none'}; first success of any kind: ${Number.isFinite(firstOkAfter(null)) ? secs(firstOkAfter(null) - pgLost.at) : 'none'}.`,
  );
  if (NODES === 1) {
    const during = samples.filter((s) => s.start >= pgLost.at && s.status === 503);
    p(
      `503 answers after the database fault: ${during.length}, with Retry-After: ${during.filter((s) => s.retryAfter !== null).length} (values: ${[...new Set(during.map((s) => s.retryAfter))].join(', ') || '—'}). KSP process: ${pidBefore === pidAfter && cluster.nodes[0]!.proc!.running() ? `pid ${pidBefore} throughout, never restarted` : `pid ${pidBefore} before, ${pidAfter} after`}.`,
    );
  }
  const unanswered = samples.filter((s) => typeof s.status !== 'number');
  if (unanswered.length) {
    p(
      `Requests without an HTTP answer: ${unanswered
        .slice(0, 20)
        .map((s) => `${s.kind} ${at(s.start)}→${at(s.end)} ${s.error ?? s.status}`)
        .join('; ')}${unanswered.length > 20 ? '; …' : ''}.`,
    );
  }
  if (proxy && HAPROXY_MODE === 'http') {
    const byNode = new Map<string, number>();
    for (const s of samples.filter(ok)) byNode.set(s.node ?? '?', (byNode.get(s.node ?? '?') ?? 0) + 1);
    p(
      `Successful answers by node (X-KSP-Node): ${[...byNode.entries()]
        .sort()
        .map(([n, c]) => `${n} ${c}`)
        .join(', ')}.`,
    );
  }
  if (proxy) {
    p('HAProxy server states:');
    for (const l of haproxyTransitions(proxy.log)) p(l);
  }
  p();
  p('PostgreSQL (pg_auto_failover):');
  p(`  pg_autoctl show uri --formation default: ${formation.shownUri}`);
  p(`  before: ${replicationLine(replicationBefore)}`);
  if (failover) for (const l of failoverLines(failover)) p(l);
  else p(`  failover: ${failoverError}`);
  if (rejoinMs !== null) p(`  node${pgLost.node} started again: a streaming standby ${secs(rejoinMs)} later`);
  if (replicationAfter) p(`  after: ${replicationLine(replicationAfter)}`);
  p();
  const via = proxy ? 'through HAProxy' : 'from the node';
  p(`Keys whose creation was answered code 0: ${acked.length}.`);
  p(
    verifyError
      ? `  Key list ${via}: could not be read (${verifyError}).`
      : `  Key list ${via} afterwards: ${acked.length - lostApi.length} of them found.`,
  );
  p(
    lostDb
      ? `  kms_key on the current primary, read directly: ${acked.length - lostDb.length} of them found.`
      : `  kms_key on the current primary: could not be read (${databaseError}).`,
  );
  const lost = verifyError ? lostDb : lostApi;
  p(
    `**Lost acknowledged writes: ${lost ? lost.length : 'unknown'}**${lost && verifyError ? ' (from the database: KSP could not list)' : ''}`,
  );
  for (const s of (lost ?? []).slice(0, 10))
    p(`  lost: ${s.name} (${s.keyId}), answered ${at(s.end)} by ${s.node ?? '?'}`);
  p(
    `Keys present whose creation was not answered code 0 (the outcome the client could not know: its node died, or the answer was lost): ${unacknowledgedPresent.length}.`,
  );
  p();
  if (coherence.length) {
    p('Coherence between two nodes (a change on ksp-1, asked of ksp-2 every 10 ms):');
    for (const c of coherence)
      p(
        `  ${c.change}: refused after ${c.ms === null ? 'more than 10 s' : `${c.ms} ms`} (documented bound: ${c.boundMs ? `${c.boundMs} ms` : 'at once'})`,
      );
    p();
  }
  p('Each node afterwards, called directly:');
  for (const l of afterwards) p(l);
  const report = out.join('\n');
  console.log(report);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const file = join(root, '.tmp', `bench-cluster-${NODES}.md`);
  writeFileSync(file, `${report}\n`);
  say(`report written to ${file}`);
  if (lost?.length) process.exitCode = 1;
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanUp();
    say('cleaned up');
  });
