/**
 * Key list benchmark: prints figures, never fails a test run.
 *
 *   npm run build && npm run bench:list -w bench
 *
 * For each engine (SQLite in a fresh data directory, PostgreSQL in a throwaway database this
 * script creates and drops) it starts the built server, initializes it, creates a few keys
 * through the API, then writes BENCH_KEYS (1,000,000 by default) more keys of the same domain
 * straight into the database, each with its version row. It then times, through the API, the
 * first page of the key list, a filtered page (algorithm + state + name) and a deep page
 * (half-way through the keys), one request at a time, and prints p50/p95 against the target
 * of p95 ≤ 50 ms.
 *
 *   BENCH_KEYS      keys written into the domain (default 1000000)
 *   BENCH_RUNS      timed requests per scenario (default 50, after 5 warm-up requests)
 *   BENCH_ENGINES   comma-separated subset of sqlite,postgres (default both)
 *   BENCH_PG_URL    PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { api as contract } from '@ksp/contracts';

const root = fileURLToPath(new URL('..', import.meta.url));
const KEYS = Number(process.env.BENCH_KEYS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const WARMUP = 5;
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGET_MS = 50;
const PAGE_SIZE = 20;

type Engine = 'sqlite' | 'postgres';

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

/** The built server on its own port; resolves once it answers. */
async function startServer(env: Record<string, string>): Promise<{ base: string; server: ChildProcess }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      ...env,
      KSP_PORT: String(port),
      KSP_LOG_LEVEL: 'warn',
      KSP_SESSION_IDLE_SECONDS: '3600',
    },
    stdio: 'inherit',
  });
  for (let i = 0; ; i++) {
    try {
      await api(base, contract.system.status.path);
      return { base, server };
    } catch {
      if (i > 300) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function initialize(base: string): Promise<string> {
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
  return token;
}

// What the seeded keys look like: a mix of algorithms (with their object types and usages),
// mostly in use, names `<app>-<n>`, created over two years, one version each.
const KINDS = [
  { algorithm: 'AES-256', object_type: 'symmetric', usage_mask: 12 },
  { algorithm: 'AES-256', object_type: 'symmetric', usage_mask: 12 },
  { algorithm: 'AES-128', object_type: 'symmetric', usage_mask: 12 },
  { algorithm: 'SM4', object_type: 'symmetric', usage_mask: 12 },
  { algorithm: 'HMAC-SHA256', object_type: 'symmetric', usage_mask: 128 },
  { algorithm: 'EC-P256', object_type: 'private', usage_mask: 1 },
  { algorithm: 'RSA-3072', object_type: 'private', usage_mask: 1 },
  { algorithm: 'ML-DSA-65', object_type: 'private', usage_mask: 1 },
] as const;
const STATES = [
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'pre-active',
  'deactivated',
  'destroyed',
];
const APPS = ['app', 'db', 'payments', 'backup'];
const SPAN_MS = 2 * 365 * 24 * 3600 * 1000;
const START_MS = Date.parse('2024-01-01T00:00:00Z');

interface Owner {
  domainId: string;
  ownerId: string | null;
  ownerName: string;
}

/** Time-ordered ids like the server's UUIDv7, in a range no real id of today uses. */
function seedId(n: number): string {
  const hex = n.toString(16).padStart(12, '0');
  return `00000000-0000-7000-8000-${hex}`;
}

function keyRow(n: number, owner: Owner): unknown[] {
  const kind = KINDS[n % KINDS.length]!;
  const state = STATES[Math.floor(n / KINDS.length) % STATES.length]!;
  const at = new Date(START_MS + Math.floor((n * SPAN_MS) / KEYS)).toISOString();
  return [
    seedId(n),
    owner.domainId,
    `${APPS[n % APPS.length]}-${n}`,
    kind.algorithm,
    kind.object_type,
    kind.usage_mask,
    state,
    1,
    owner.ownerId,
    owner.ownerName,
    0,
    1,
    null,
    '',
    '{}',
    null,
    0,
    0,
    state === 'pre-active' ? null : at,
    state === 'deactivated' || state === 'destroyed' ? at : null,
    null,
    null,
    state === 'destroyed' ? at : null,
    at,
    at,
  ];
}

const KEY_COLUMNS = [
  'id',
  'domain_id',
  'name',
  'algorithm',
  'object_type',
  'usage_mask',
  'state',
  'current_version',
  'owner_id',
  'owner_name',
  'exportable',
  'deletable',
  'linked_key_id',
  'description',
  'labels',
  'cte',
  'kmip_total',
  'operations',
  'activation_date',
  'deactivation_date',
  'revocation_reason',
  'revocation_message',
  'destroyed_at',
  'created_at',
  'updated_at',
];
const VERSION_COLUMNS = [
  'key_id',
  'version',
  'material_wrapped',
  'public_key',
  'kcv',
  'fingerprint',
  'created_at',
];
/** Stands for wrapped material: the list never unwraps it, but the row has its real size. */
const WRAPPED = randomBytes(72).toString('base64');

function versionRow(n: number): unknown[] {
  const at = new Date(START_MS + Math.floor((n * SPAN_MS) / KEYS)).toISOString();
  const destroyed = STATES[Math.floor(n / KINDS.length) % STATES.length] === 'destroyed';
  return [seedId(n), 1, destroyed ? null : WRAPPED, null, 'A1B2C3', null, at];
}

const BATCH = 10_000;

function seedSqlite(file: string): void {
  const db = new BetterSqlite3(file);
  db.pragma('busy_timeout = 5000');
  const owner = db
    .prepare(
      "select domain_id as domainId, owner_id as ownerId, owner_name as ownerName from kms_key where name = 'bench-seed-1'",
    )
    .get() as Owner;
  const insertKey = db.prepare(
    `insert into kms_key (${KEY_COLUMNS.join(', ')}) values (${KEY_COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertVersion = db.prepare(
    `insert into kms_key_version (${VERSION_COLUMNS.join(', ')}) values (${VERSION_COLUMNS.map(() => '?').join(', ')})`,
  );
  const batch = db.transaction((from: number, to: number) => {
    for (let n = from; n < to; n++) {
      insertKey.run(keyRow(n, owner));
      insertVersion.run(versionRow(n));
    }
  });
  for (let n = 0; n < KEYS; n += BATCH) batch(n, Math.min(KEYS, n + BATCH));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Multi-row inserts as one array per column (`unnest`), BATCH rows per statement. */
async function seedPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ domainid: string; ownerid: string | null; ownername: string }>(
      "select domain_id as domainId, owner_id as ownerId, owner_name as ownerName from kms_key where name = 'bench-seed-1'",
    );
    const owner: Owner = {
      domainId: rows[0]!.domainid,
      ownerId: rows[0]!.ownerid,
      ownerName: rows[0]!.ownername,
    };
    const keyTypes = [
      'text',
      'text',
      'text',
      'text',
      'text',
      'int',
      'text',
      'int',
      'text',
      'text',
      'int',
      'int',
      'text',
      'text',
      'text',
      'text',
      'int',
      'int',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
    ];
    const versionTypes = ['text', 'int', 'text', 'text', 'text', 'text', 'text'];
    const unnest = (table: string, columns: string[], types: string[]) =>
      `insert into ${table} (${columns.join(', ')}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;
    const columnsOf = (rowsOf: unknown[][], width: number) =>
      Array.from({ length: width }, (_, c) => rowsOf.map((r) => r[c]));
    for (let n = 0; n < KEYS; n += BATCH) {
      const keys: unknown[][] = [];
      const versions: unknown[][] = [];
      for (let i = n; i < Math.min(KEYS, n + BATCH); i++) {
        keys.push(keyRow(i, owner));
        versions.push(versionRow(i));
      }
      await client.query('begin');
      await client.query(unnest('kms_key', KEY_COLUMNS, keyTypes), columnsOf(keys, KEY_COLUMNS.length));
      await client.query(
        unnest('kms_key_version', VERSION_COLUMNS, versionTypes),
        columnsOf(versions, VERSION_COLUMNS.length),
      );
      await client.query('commit');
    }
    // What autovacuum does after a bulk load, done now so the planner sees the rows.
    await client.query('vacuum analyze kms_key');
    await client.query('vacuum analyze kms_key_version');
  } finally {
    await client.end();
  }
}

interface Scenario {
  name: string;
  query: Record<string, string | number>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(base: string, token: string, scenario: Scenario) {
  const qs = new URLSearchParams(
    Object.entries(scenario.query).map(([k, v]): [string, string] => [k, String(v)]),
  );
  const url = `${base}${contract.key.list.path}?${qs.toString()}`;
  const times: number[] = [];
  let shown = 0;
  let total = 0;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { token } });
    const json = (await res.json()) as {
      code: number;
      msg: string;
      data: { data: unknown[]; total: number };
    };
    const ms = performance.now() - t0;
    if (json.code !== 0) throw new Error(`${scenario.name}: ${json.msg}`);
    if (i >= WARMUP) times.push(ms);
    shown = json.data.data.length;
    total = json.data.total;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), shown, total };
}

async function runEngine(engine: Engine): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-bench-list-'));
  const dbName = `ksp_bench_${randomBytes(6).toString('hex')}`;
  let dbUrl: string | null = null;
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  }
  const env: Record<string, string> = {
    KSP_DATA_DIR: dataDir,
    ...(dbUrl ? { KSP_DATABASE_URL: dbUrl } : {}),
  };
  let { base, server } = await startServer(env);
  try {
    const token = await initialize(base);
    for (let i = 1; i <= 3; i++) {
      await api(
        base,
        contract.key.create.path,
        { name: `bench-seed-${i}`, algorithm: 'AES-256', usage_mask: 12 },
        token,
      );
    }
    // Seeded with the server stopped, as a restore would be, so its caches start cold.
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    const t0 = performance.now();
    if (engine === 'sqlite') seedSqlite(join(dataDir, 'ksp.sqlite'));
    else await seedPostgres(dbUrl!);
    console.error(`${engine}: ${KEYS} keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    ({ base, server } = await startServer(env));
    const session = await api<{ token: string }>(base, contract.user.login.path, {
      username: Buffer.from('bench').toString('base64'),
      password: createHash('sha256').update('Bench-Pass-1').digest('base64'),
    });
    const deepPage = Math.max(1, Math.floor(KEYS / 2 / PAGE_SIZE));
    const scenarios: Scenario[] = [
      { name: 'first page', query: { page: 1, page_size: PAGE_SIZE } },
      {
        name: 'filtered: AES-256, in use, name_prefix app-1',
        query: { page: 1, page_size: PAGE_SIZE, algorithm: 'AES-256', state: 'in-use', name_prefix: 'app-1' },
      },
      {
        name: 'filtered: AES-256, in use, name contains app-1',
        query: { page: 1, page_size: PAGE_SIZE, algorithm: 'AES-256', state: 'in-use', name: 'app-1' },
      },
      { name: `deep page (${deepPage} of ${PAGE_SIZE})`, query: { page: deepPage, page_size: PAGE_SIZE } },
    ];
    const lines: string[] = [];
    for (const s of scenarios) {
      const r = await measure(base, session.token, s);
      lines.push(
        `| ${engine} | ${s.name} | ${r.shown} | ${r.total} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p95 <= TARGET_MS ? 'yes' : 'NO'} |`,
      );
    }
    return lines;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(null)));
    rmSync(dataDir, { recursive: true, force: true });
    if (dbUrl) {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const engine of ENGINES) rows.push(...(await runEngine(engine)));
  const text = [
    `KSP key list benchmark — ${new Date().toISOString()} — node ${process.version}, ${KEYS} seeded keys, ${RUNS} sequential requests per row`,
    '',
    `| engine | scenario | rows | total | p50 ms | p95 ms | p95 ≤ ${TARGET_MS} ms |`,
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(text);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  writeFileSync(join(root, '.tmp', 'bench-key-list.md'), `${text}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
