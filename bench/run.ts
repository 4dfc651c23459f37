/**
 * KSP benchmark: prints figures, never fails a test run.
 *
 *   npm run build && npm run bench -w bench
 *
 * Starts the built server (SQLite, fresh data directory) as its own process, loads it with
 * autocannon at 16 and 64 concurrent clients, and times the same primitives called
 * directly in this process. Targets (issue 3) are printed beside the figures.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { api as contract } from '@ksp/contracts';
import type * as Asymmetric from '../apps/server/src/platform/crypto/asymmetric.js';
import type * as Generate from '../apps/server/src/platform/crypto/generate.js';
import type * as PostQuantum from '../apps/server/src/platform/crypto/post-quantum.js';
import type * as Symmetric from '../apps/server/src/platform/crypto/symmetric.js';

// The primitives are timed as the server runs them: compiled (npm run build first). Types
// come from the sources, so the bench typechecks before anything is built.
const dist = (name: string) =>
  new URL(`../apps/server/dist/platform/crypto/${name}.js`, import.meta.url).href;
const { aesGcmEncrypt } = (await import(dist('symmetric'))) as typeof Symmetric;
const { ecdsaSign, ed25519Sign } = (await import(dist('asymmetric'))) as typeof Asymmetric;
const { generateKey } = (await import(dist('generate'))) as typeof Generate;
const { pqcSign } = (await import(dist('post-quantum'))) as typeof PostQuantum;

const root = fileURLToPath(new URL('..', import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function api<T>(base: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { token } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { code: number; msg: string; data: T };
  if (json.code !== 0) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

interface Row {
  scenario: string;
  clients: number | string;
  rate: number;
  p50: number | null;
  p99: number | null;
  errors: number;
}

async function load(
  base: string,
  token: string,
  scenario: string,
  clients: number,
  path: string,
  body: () => unknown,
  method = 'POST',
): Promise<Row> {
  const result = await autocannon({
    url: base + path,
    connections: clients,
    duration: DURATION,
    method: method as 'POST',
    headers: { token, 'content-type': 'application/json' },
    requests: [
      { setupRequest: (req) => (method === 'POST' ? { ...req, body: JSON.stringify(body()) } : req) },
    ],
  });
  const errors = result.non2xx + result.errors + result.timeouts;
  return {
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
  return { scenario: name, clients: 'direct', rate: count / seconds, p50: null, p99: null, errors: 0 };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      KSP_DATA_DIR: dataDir,
      KSP_PORT: String(port),
      KSP_LOG_LEVEL: 'warn',
      KSP_SESSION_IDLE_SECONDS: '3600',
    },
    stdio: 'inherit',
  });
  try {
    for (let i = 0; ; i++) {
      try {
        await api(base, contract.system.status.path);
        break;
      } catch {
        if (i > 100) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    for (let i = 0; i < 3; i++) await api(base, contract.system.initComponent.path, {});
    await api(base, contract.system.initFinish.path, {});
    await api(base, contract.system.activate.path, {
      username: 'bench',
      password: 'Bench-Pass-1',
      email: 'b@example.test',
    });
    const { token } = await api<{ token: string }>(base, contract.user.login.path, {
      username: Buffer.from('bench').toString('base64'),
      password: createHash('sha256').update('Bench-Pass-1').digest('base64'),
    });
    const key = async (name: string, algorithm: string, usage_mask: number) =>
      (await api<{ id: string }>(base, contract.key.create.path, { name, algorithm, usage_mask }, token)).id;
    const aes = await key('bench-aes', 'AES-256', 12);
    const p256 = await key('bench-p256', 'EC-P256', 3);
    const ed = await key('bench-ed25519', 'ED25519', 3);
    const mldsa = await key('bench-mldsa65', 'ML-DSA-65', 3);
    const plaintext = randomBytes(64).toString('base64');
    const message = randomBytes(64).toString('base64');
    let created = 0;

    const rows: Row[] = [];
    for (const clients of [16, 64]) {
      rows.push(
        await load(
          base,
          token,
          'no-op (authenticated)',
          clients,
          contract.crypto.noop.path,
          () => undefined,
          'GET',
        ),
      );
      rows.push(
        await load(base, token, 'AES-256-GCM encrypt 64 B', clients, contract.crypto.encrypt.path, () => ({
          key_id: aes,
          plaintext,
        })),
      );
      rows.push(
        await load(base, token, 'ECDSA P-256 sign', clients, contract.crypto.sign.path, () => ({
          key_id: p256,
          data: message,
        })),
      );
      rows.push(
        await load(base, token, 'Ed25519 sign', clients, contract.crypto.sign.path, () => ({
          key_id: ed,
          data: message,
        })),
      );
      rows.push(
        await load(base, token, 'ML-DSA-65 sign', clients, contract.crypto.sign.path, () => ({
          key_id: mldsa,
          data: message,
        })),
      );
      rows.push(
        await load(base, token, 'AES-256 key creation', clients, contract.key.create.path, () => ({
          name: `bench-${clients}-${created++}`,
          algorithm: 'AES-256',
          usage_mask: 12,
        })),
      );
    }

    const aesKey = randomBytes(32);
    const data = randomBytes(64);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
      type: 'pkcs8',
      format: 'der',
    });
    const edKey = generateKey('ED25519').material;
    const ml = generateKey('ML-DSA-65').material;
    rows.push(direct('AES-256-GCM encrypt 64 B', () => aesGcmEncrypt(aesKey, data)));
    rows.push(direct('ECDSA P-256 sign', () => ecdsaSign('EC-P256', ec, data)));
    rows.push(direct('Ed25519 sign', () => ed25519Sign(edKey, data)));
    rows.push(direct('ML-DSA-65 sign', () => pqcSign('ML-DSA-65', ml, data)));

    const fmt = (n: number | null, digits = 0) => (n === null ? '-' : n.toFixed(digits));
    const lines = [
      `KSP benchmark — ${new Date().toISOString()} — node ${process.version}, SQLite, ${DURATION} s per run`,
      '',
      '| scenario | clients | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.scenario} | ${r.clients} | ${fmt(r.rate)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.errors} |`,
      ),
    ];
    const rate = (s: string, c: number | string) =>
      rows.find((r) => r.scenario === s && r.clients === c)?.rate ?? 0;
    const targets: [string, boolean, string][] = [];
    for (const c of [16, 64]) {
      const ratio = rate('AES-256-GCM encrypt 64 B', c) / rate('no-op (authenticated)', c);
      targets.push([
        `encrypt ≥ 50 % of the no-op rate at ${c} clients`,
        ratio >= 0.5,
        `${(ratio * 100).toFixed(0)} %`,
      ]);
      for (const s of ['ECDSA P-256 sign', 'Ed25519 sign', 'ML-DSA-65 sign']) {
        const r = rate(s, c) / rate(s, 'direct');
        targets.push([
          `${s} ≥ 60 % of the direct rate at ${c} clients`,
          r >= 0.6,
          `${(r * 100).toFixed(0)} %`,
        ]);
      }
    }
    const create16 = rows.find((r) => r.scenario === 'AES-256 key creation' && r.clients === 16)!;
    const create64 = rows.find((r) => r.scenario === 'AES-256 key creation' && r.clients === 64)!;
    targets.push([
      'key creation ≥ 3,000/s at 16 clients',
      create16.rate >= 3000,
      `${create16.rate.toFixed(0)}/s`,
    ]);
    targets.push([
      'key creation p99 ≤ 20 ms at 16 clients',
      (create16.p99 ?? 1e9) <= 20,
      `${fmt(create16.p99, 1)} ms`,
    ]);
    targets.push([
      'no collapse at 64 clients (≥ 80 % of the 16-client rate)',
      create64.rate >= 0.8 * create16.rate,
      `${create64.rate.toFixed(0)}/s`,
    ]);
    lines.push(
      '',
      '| target | met | figure |',
      '|---|---|---|',
      ...targets.map(([t, ok, v]) => `| ${t} | ${ok ? 'yes' : 'NO'} | ${v} |`),
    );
    const text = lines.join('\n');
    console.log(text);
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(join(root, '.tmp', 'bench.md'), `${text}\n`);
  } finally {
    server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
