/**
 * KSP benchmark: prints figures, never fails a test run.
 *
 *   npm run build && npm run bench -w bench
 *
 * Starts the built server as its own process, on SQLite (fresh data directory) and on
 * PostgreSQL (a throwaway database), loads it with autocannon at 16 and 64 concurrent
 * clients, loads a bare Fastify route answering the same envelope in the same run, and times
 * the same primitives called directly in this process. Targets (issues 3 and 10) are printed
 * beside the figures.
 *
 *   BENCH_SECONDS=5            length of each load run
 *   BENCH_WARMUP=3             seconds of the same load before each measured run (not counted)
 *   BENCH_ENGINES=sqlite,postgres
 *   BENCH_ONLY=encrypt,no-op   only the scenarios whose name contains one of these
 *   BENCH_PROFILE=dir          the server writes a V8 CPU profile (.cpuprofile) into dir
 *   BENCH_PG_URL               PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { api as contract } from '@ksp/contracts';
import {
  api,
  child,
  ENGINES,
  freePort,
  initialize,
  root,
  startServer,
  serverData,
  waitFor,
  type Engine,
} from './support.js';
import type * as Asymmetric from '../apps/server/src/platform/crypto/asymmetric.js';
import type * as Generate from '../apps/server/src/platform/crypto/generate.js';
import type * as PostQuantum from '../apps/server/src/platform/crypto/post-quantum.js';
import type * as Symmetric from '../apps/server/src/platform/crypto/symmetric.js';

// The primitives are timed as the server runs them: compiled (npm run build first). Types
// come from the sources, so the bench typechecks before anything is built.
const dist = (name: string) =>
  new URL(`../apps/server/dist/platform/crypto/${name}.js`, import.meta.url).href;
const { aesGcmEncrypt } = (await import(dist('symmetric'))) as typeof Symmetric;
const { ecdsaSign, ed25519Sign, parsePrivateKey, rsaSign } = (await import(
  dist('asymmetric')
)) as typeof Asymmetric;
const { generateKey } = (await import(dist('generate'))) as typeof Generate;
const { pqcSign } = (await import(dist('post-quantum'))) as typeof PostQuantum;

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
/**
 * Each scenario first runs unmeasured for this long at its client count: a server that has
 * just started compiles its request path (V8 runs the first few thousand requests of a route
 * in its slower tiers) and opens its database connections, and a measurement that includes
 * that reads as the scenario's cost (3 to 4 times the CPU per request at a few hundred
 * requests a second).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toLowerCase());
const PROFILE = process.env.BENCH_PROFILE;
const wanted = (scenario: string) => !ONLY || ONLY.some((o) => scenario.toLowerCase().includes(o));

interface Row {
  engine: Engine | '-';
  scenario: string;
  clients: number | string;
  rate: number;
  p50: number | null;
  p99: number | null;
  errors: number;
  /**
   * CPU time of the answering process per request, µs (all its threads). Unlike req/s it
   * hardly moves with what else the machine runs, so ratios of it are the steadier figure.
   */
  cpu: number | null;
}

async function load(
  cpuMs: () => number,
  base: string,
  token: string,
  scenario: string,
  clients: number,
  path: string,
  body: () => unknown,
  method = 'POST',
): Promise<Row> {
  const run = (duration: number) =>
    autocannon({
      url: base + path,
      connections: clients,
      duration,
      method: method as 'POST',
      headers: { token, 'content-type': 'application/json' },
      requests: [
        { setupRequest: (req) => (method === 'POST' ? { ...req, body: JSON.stringify(body()) } : req) },
      ],
    });
  if (WARMUP > 0) await run(WARMUP);
  const cpuBefore = cpuMs();
  const result = await run(DURATION);
  const errors = result.non2xx + result.errors + result.timeouts;
  const cpu = ((cpuMs() - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  return {
    cpu,
    engine: '-',
    scenario,
    clients,
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  };
}

function direct(name: string, fn: () => unknown, seconds = 2): Row {
  for (let i = 0; i < 20; i++) fn();
  let count = 0;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    fn();
    count++;
  }
  return {
    cpu: null,
    engine: '-',
    scenario: name,
    clients: 'direct',
    rate: count / seconds,
    p50: null,
    p99: null,
    errors: 0,
  };
}

async function loadEngine(engine: Engine, bare: { base: string; cpuMs: () => number }): Promise<Row[]> {
  const bareBase = bare.base;
  const data = await serverData(engine, 'ksp-bench-');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(data.env, PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []);
    const { base } = server;
    const token = await initialize(base);
    const key = async (name: string, algorithm: string, usage_mask: number) =>
      (await api<{ id: string }>(base, contract.key.create.path, { name, algorithm, usage_mask }, token)).id;
    const aes = await key('bench-aes', 'AES-256', 12);
    const p256 = await key('bench-p256', 'EC-P256', 3);
    const ed = await key('bench-ed25519', 'ED25519', 3);
    const rsa = await key('bench-rsa2048', 'RSA-2048', 3);
    const mldsa = await key('bench-mldsa65', 'ML-DSA-65', 3);
    const plaintext = randomBytes(64).toString('base64');
    const message = randomBytes(64).toString('base64');
    let created = 0;
    const signing = (key_id: string) => () => ({ key_id, data: message });
    const scenarios: [string, string, () => unknown, string?][] = [
      ['no-op (authenticated)', contract.crypto.noop.path, () => undefined, 'GET'],
      ['AES-256-GCM encrypt 64 B', contract.crypto.encrypt.path, () => ({ key_id: aes, plaintext })],
      ['ECDSA P-256 sign', contract.crypto.sign.path, signing(p256)],
      ['Ed25519 sign', contract.crypto.sign.path, signing(ed)],
      ['RSA-2048 sign', contract.crypto.sign.path, signing(rsa)],
      ['ML-DSA-65 sign', contract.crypto.sign.path, signing(mldsa)],
      [
        'AES-256 key creation',
        contract.key.create.path,
        () => ({ name: `bench-${created++}`, algorithm: 'AES-256', usage_mask: 12 }),
      ],
    ];
    const rows: Row[] = [];
    for (const clients of [16, 64]) {
      // The baseline runs beside each engine's own figures, so the ratio compares one moment.
      if (wanted('bare fastify') || wanted('no-op'))
        rows.push(
          await load(
            bare.cpuMs,
            bareBase,
            token,
            'bare Fastify (same envelope)',
            clients,
            '/bare',
            () => undefined,
            'GET',
          ),
        );
      for (const [scenario, path, body, method] of scenarios) {
        if (wanted(scenario))
          rows.push(await load(server.cpuMs, base, token, scenario, clients, path, body, method));
      }
    }
    return rows.map((r) => ({ ...r, engine }));
  } finally {
    await server?.stop();
    await data.remove();
  }
}

/**
 * The primitives as the server runs them for one request: AES with the unwrapped key,
 * signatures with the private key object the key cache keeps (parsed once per cache entry).
 */
function directRows(): Row[] {
  const aesKey = randomBytes(32);
  const data = randomBytes(64);
  const der = (type: 'ec' | 'rsa') =>
    (type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 })
    ).privateKey.export({ type: 'pkcs8', format: 'der' });
  const ec = parsePrivateKey(der('ec'));
  const rsa = parsePrivateKey(der('rsa'));
  const edKey = parsePrivateKey(generateKey('ED25519').material);
  const ml = generateKey('ML-DSA-65').material;
  const rows: Row[] = [];
  const maybe = (name: string, fn: () => unknown) => {
    if (wanted(name)) rows.push(direct(name, fn));
  };
  maybe('AES-256-GCM encrypt 64 B', () => aesGcmEncrypt(aesKey, data));
  maybe('ECDSA P-256 sign', () => ecdsaSign('EC-P256', ec, data));
  maybe('Ed25519 sign', () => ed25519Sign(edKey, data));
  maybe('RSA-2048 sign', () => rsaSign('RSA-2048', rsa, data));
  maybe('ML-DSA-65 sign', () => pqcSign('ML-DSA-65', ml, data));
  return rows;
}

function report(rows: Row[]): string {
  const fmt = (n: number | null, digits = 0) => (n === null ? '-' : n.toFixed(digits));
  const lines = [
    `KSP benchmark — ${new Date().toISOString()} — node ${process.version}, ${DURATION} s per run after ${WARMUP} s of warm-up, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    '',
    '| engine | scenario | clients | req/s | p50 ms | p99 ms | errors | server CPU µs/req |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${r.scenario} | ${r.clients} | ${fmt(r.rate)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.errors} | ${fmt(r.cpu, 1)} |`,
    ),
  ];
  const find = (engine: Engine, s: string, c: number) =>
    rows.find((r) => r.engine === engine && r.scenario === s && r.clients === c);
  const targets: [string, boolean, string][] = [];
  const ratio = (engine: Engine, label: string, s: string, of: string, c: number, min: number) => {
    const a = find(engine, s, c);
    const b = find(engine, of, c);
    if (!a || !b || !b.rate) return;
    const r = a.rate / b.rate;
    // The same ratio from CPU per request: what the rates would say on an otherwise idle machine.
    const byCpu = a.cpu && b.cpu ? ` (by CPU per request: ${((b.cpu / a.cpu) * 100).toFixed(0)} %)` : '';
    targets.push([`${engine}: ${label} at ${c} clients`, r >= min, `${(r * 100).toFixed(0)} %${byCpu}`]);
  };
  for (const engine of ENGINES) {
    for (const c of [16, 64]) {
      const noop = 'no-op (authenticated)';
      ratio(engine, 'no-op ≥ 50 % of bare Fastify', noop, 'bare Fastify (same envelope)', c, 0.5);
      ratio(engine, 'encrypt ≥ 65 % of the no-op', 'AES-256-GCM encrypt 64 B', noop, c, 0.65);
      ratio(engine, 'ECDSA P-256 sign ≥ 50 % of the no-op', 'ECDSA P-256 sign', noop, c, 0.5);
      ratio(engine, 'Ed25519 sign ≥ 50 % of the no-op', 'Ed25519 sign', noop, c, 0.5);
    }
    // Issue 31: encrypt holds up as clients are added.
    const enc16 = find(engine, 'AES-256-GCM encrypt 64 B', 16);
    const enc64 = find(engine, 'AES-256-GCM encrypt 64 B', 64);
    if (enc16 && enc64) {
      targets.push([
        `${engine}: encrypt at 64 clients ≥ its 16-client rate`,
        enc64.rate >= enc16.rate,
        `${((enc64.rate / enc16.rate) * 100).toFixed(0)} % (${enc64.rate.toFixed(0)} against ${enc16.rate.toFixed(0)}/s)`,
      ]);
      for (const e of [enc16, enc64])
        targets.push([
          `${engine}: encrypt p99 < 50 ms at ${e.clients} clients`,
          (e.p99 ?? 1e9) < 50,
          `${fmt(e.p99, 1)} ms`,
        ]);
    }
    const create16 = find(engine, 'AES-256 key creation', 16);
    const create64 = find(engine, 'AES-256 key creation', 64);
    if (create16) {
      targets.push([
        `${engine}: key creation ≥ 3,000/s at 16 clients`,
        create16.rate >= 3000,
        `${create16.rate.toFixed(0)}/s`,
      ]);
      targets.push([
        `${engine}: key creation p99 ≤ 20 ms at 16 clients`,
        (create16.p99 ?? 1e9) <= 20,
        `${fmt(create16.p99, 1)} ms`,
      ]);
    }
    if (create16 && create64) {
      targets.push([
        `${engine}: no collapse at 64 clients (≥ 80 % of the 16-client rate)`,
        create64.rate >= 0.8 * create16.rate,
        `${create64.rate.toFixed(0)}/s`,
      ]);
    }
  }
  lines.push(
    '',
    '| target | met | figure |',
    '|---|---|---|',
    ...targets.map(([t, ok, v]) => `| ${t} | ${ok ? 'yes' : 'NO'} | ${v} |`),
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const barePort = await freePort();
  const bareBase = `http://127.0.0.1:${barePort}`;
  const bare = child(['--import', 'tsx', join(root, 'bench/bare-fastify.ts'), String(barePort)]);
  const rows: Row[] = [];
  try {
    await waitFor(bareBase, '/bare');
    for (const engine of ENGINES)
      rows.push(...(await loadEngine(engine, { base: bareBase, cpuMs: bare.cpuMs })));
  } finally {
    await bare.stop();
  }
  rows.push(...directRows());
  const text = report(rows);
  console.log(text);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  writeFileSync(join(root, '.tmp', 'bench.md'), `${text}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
