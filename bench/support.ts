/**
 * What every benchmark needs: the built server as its own process, a throwaway PostgreSQL
 * database, the API's envelope, and a first run of the server (initialized, activated,
 * signed in).
 */
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { api as contract, licenseFeatures, Usage } from '@ksp/contracts';
import { newEcKeyArgs } from '../tools/ukey-bridge/src/self-signed.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export type Engine = 'sqlite' | 'postgres';
export const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
/** The administrator every benchmark activates the server with. */
export const BENCH_USER = { username: 'bench', password: 'Bench-Pass-1', email: 'b@example.test' };

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** One call; GET without a body, POST with one. Throws unless the envelope says code 0. */
export async function api<T>(base: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { token } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { code: number; msg: string; data: T };
  if (json.code !== 0) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

/** Resolves once `base + path` answers at all. */
export async function waitFor(base: string, path: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(base + path);
      await res.arrayBuffer();
      return;
    } catch {
      if (i > 300) throw new Error(`${base} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface Child {
  pid: number;
  /** CPU time the process used so far, all its threads, in ms (Linux /proc). */
  cpuMs: () => number;
  stop(): Promise<void>;
}

/** A Node process that the caller stops (and waits for) when it is done. */
export function child(args: string[], env: NodeJS.ProcessEnv = process.env): Child {
  const proc = spawn(process.execPath, args, { env, stdio: 'inherit', cwd: root });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    pid: proc.pid ?? 0,
    cpuMs: () => {
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    },
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The built server (`apps/server/dist/main.js`) on a free loopback port; resolves once it
 * answers. `nodeArgs` go before the script (e.g. `--cpu-prof`).
 */
export async function startServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Child & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // BENCH_SERVER_MAIN: another build's dist/main.js (ab.ts compares two builds in one run).
  const main = process.env.BENCH_SERVER_MAIN ?? join(root, 'apps/server/dist/main.js');
  const server = child([...nodeArgs, main], {
    ...process.env,
    KSP_PORT: String(port),
    KSP_LOG_LEVEL: 'warn',
    KSP_SESSION_IDLE_SECONDS: '3600',
    KSP_LICENSE_TEST_PUBLIC_KEY: BENCH_VENDOR_PUBLIC,
    ...env,
  });
  try {
    await waitFor(base, contract.system.status.path);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { ...server, base };
}

/** Signs in as the benchmark's administrator. */
export function login(base: string) {
  return api<{ token: string; userinfo: { name: string } }>(base, contract.user.login.path, {
    username: Buffer.from(BENCH_USER.username).toString('base64'),
    password: createHash('sha256').update(BENCH_USER.password).digest('base64'),
  });
}

/** First run: three key components, finish, activate; answers a session token. */
export async function initialize(base: string): Promise<string> {
  for (let i = 0; i < 3; i++) await api(base, contract.system.initComponent.path, {});
  await api(base, contract.system.initFinish.path, {});
  await api(base, contract.system.activate.path, BENCH_USER);
  const { token } = await login(base);
  await licenseForBench(base, token);
  return token;
}

/**
 * The benchmarks create far more keys than the community limits allow (docs/api.md
 * "Licences"): each server trusts a vendor key made for this run (KSP_LICENSE_TEST_PUBLIC_KEY,
 * set by `startServer`) and gets a licence for its lock code with room for every feature.
 */
const benchVendor = generateKeyPairSync('ed25519');
export const BENCH_VENDOR_PUBLIC = benchVendor.publicKey.export({ format: 'jwk' }).x!;

async function licenseForBench(base: string, token: string): Promise<void> {
  // A build from before licences (bench:ab's other build) has no such call, and no limits.
  if ((await fetch(base + contract.license.lockdata.path, { headers: { token } })).status === 404) return;
  const { lock_code } = await api<{ lock_code: string }>(
    base,
    contract.license.lockdata.path,
    undefined,
    token,
  );
  const now = Date.now();
  const payload = Buffer.from(
    JSON.stringify({
      id: `BENCH-${randomUUID()}`,
      customer: 'KSP benchmark',
      lock_code,
      bind_type: 'instance',
      features: Object.fromEntries(licenseFeatures.map((feature) => [feature, 1_000_000_000])),
      not_before: new Date(now - 86_400_000).toISOString(),
      not_after: new Date(now + 86_400_000).toISOString(),
      issued_at: new Date(now - 86_400_000).toISOString(),
    }),
  );
  const signature = sign(null, payload, benchVendor.privateKey);
  await api(
    base,
    contract.license.activate.path,
    { license: `KSP1.${payload.toString('base64url')}.${signature.toString('base64url')}` },
    token,
  );
}

/** A throwaway PostgreSQL database, dropped by `drop`. */
export async function throwawayPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ksp_bench_${randomUUID().replaceAll('-', '')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A prepared SQLite INSERT of one row, its values in the order of `columns`. */
export function sqliteInsert(db: BetterSqlite3.Database, table: string, columns: readonly string[]) {
  return db.prepare(
    `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
}

/**
 * Writes `total` rows into a stopped server's SQLite file, `batch` to a transaction: `writer`
 * reads what it needs from the database and answers the writing of row n; `after` runs last,
 * before the write-ahead log is folded into the file.
 */
export function seedSqliteFile(
  file: string,
  o: {
    total: number;
    batch: number;
    writer: (db: BetterSqlite3.Database) => (n: number) => void;
    after?: (db: BetterSqlite3.Database) => void;
  },
): void {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    const write = o.writer(db);
    const batch = db.transaction((from: number, to: number) => {
      for (let n = from; n < to; n++) write(n);
    });
    for (let n = 0; n < o.total; n += o.batch) batch(n, Math.min(o.total, n + o.batch));
    o.after?.(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Runs `use` with a client of the PostgreSQL database `url`, ended afterwards. */
export async function withPgClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * Writes `rows` (values in the order of `columns`) in one PostgreSQL statement: one array per
 * column (`unnest`), each cast to its entry of `types`.
 */
export async function pgInsertRows(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  types: readonly string[],
  rows: readonly unknown[][],
): Promise<void> {
  await client.query(
    `insert into ${table} (${columns.join(', ')}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`,
    columns.map((_, c) => rows.map((r) => r[c])),
  );
}

/**
 * Where one server on `engine` keeps its data: a fresh directory (its name starts with
 * `prefix`) and, on PostgreSQL, a throwaway database. `env` points a server at both;
 * `remove` deletes both.
 */
export async function serverData(engine: Engine, prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const database = engine === 'postgres' ? await throwawayPostgres() : null;
  return {
    dir,
    databaseUrl: database?.url ?? null,
    env: { KSP_DATA_DIR: dir, ...(database ? { KSP_DATABASE_URL: database.url } : {}) } as Record<
      string,
      string
    >,
    remove: async () => {
      rmSync(dir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/**
 * Runs a benchmark that answers one table of rows per engine: prints the table under its title
 * and header rows and keeps it in `.tmp/<file>`; a failure sets the exit code.
 */
export function runPerEngine(o: {
  file: string;
  title: string;
  header: string;
  runEngine: (engine: Engine) => Promise<string[]>;
}): void {
  (async () => {
    const rows: string[] = [];
    for (const engine of ENGINES) rows.push(...(await o.runEngine(engine)));
    const columns = o.header.split('|').length - 2;
    const text = [o.title, '', o.header, `|${'---|'.repeat(columns)}`, ...rows].join('\n');
    console.log(text);
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(join(root, '.tmp', o.file), `${text}\n`);
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

/**
 * autocannon's request for an AES-256-GCM encrypt of 64 bytes under `keyId`, the same one over
 * and over (the run's connections and duration are the caller's).
 */
export function restEncryptRequest(base: string, token: string, keyId: string) {
  return {
    url: base + contract.crypto.encrypt.path,
    method: 'POST' as const,
    headers: { token, 'content-type': 'application/json' },
    body: JSON.stringify({ key_id: keyId, plaintext: Buffer.alloc(64, 0x61).toString('base64') }),
  };
}

/** The key tables' integer columns (PostgreSQL casts); every other column is text. */
const KEY_INTEGER_COLUMNS = new Set([
  'usage_mask',
  'current_version',
  'exportable',
  'deletable',
  'kmip_total',
  'operations',
  'version',
]);

/**
 * Writes keys 0 to `o.total` - 1 into PostgreSQL's kms_key and kms_key_version, `o.batch` keys
 * a transaction (`rowsOf(i)`: key i's rows of each, in the columns' order), then analyzes both
 * tables as autovacuum would after a bulk load.
 */
export async function pgSeedKeys(
  client: pg.Client,
  o: {
    total: number;
    batch: number;
    columns: { keys: readonly string[]; versions: readonly string[] };
    rowsOf: (i: number) => { keys: unknown[][]; versions: unknown[][] };
  },
): Promise<void> {
  const types = (columns: readonly string[]) =>
    columns.map((c) => (KEY_INTEGER_COLUMNS.has(c) ? 'int' : 'text'));
  for (let n = 0; n < o.total; n += o.batch) {
    const keys: unknown[][] = [];
    const versions: unknown[][] = [];
    for (let i = n; i < Math.min(o.total, n + o.batch); i++) {
      const rows = o.rowsOf(i);
      keys.push(...rows.keys);
      versions.push(...rows.versions);
    }
    await client.query('begin');
    await pgInsertRows(client, 'kms_key', o.columns.keys, types(o.columns.keys), keys);
    await pgInsertRows(client, 'kms_key_version', o.columns.versions, types(o.columns.versions), versions);
    await client.query('commit');
  }
  await client.query('vacuum analyze kms_key');
  await client.query('vacuum analyze kms_key_version');
}

/** A new AES-256 key for encrypt and decrypt, named `name`: its id. */
export async function aesKey(base: string, token: string, name: string): Promise<string> {
  const body = { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt };
  return (await api<{ id: string }>(base, contract.key.create.path, body, token)).id;
}

/** openssl's options for a new EC P-256 key, unencrypted. */
/**
 * A new EC P-256 key written to `files.key` and, by `openssl req`, a CSR (`csr`) or a
 * certificate the key signs itself, valid a day (`self-signed`), written to `files.out`.
 */
export function ecP256(kind: 'csr' | 'self-signed', files: { key: string; out: string }, cn: string): void {
  const made = kind === 'csr' ? ['-new'] : ['-x509', '-days', '1'];
  const args = ['req', ...made, ...newEcKeyArgs(files.key), '-out', files.out, '-subj', `/CN=${cn}`];
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/** The `p`th percentile of `values` (nearest rank); NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Times a list call (`url` with its query): `warmup` untimed requests, then `runs` one at a time.
 * Its p50 and p95 in ms, and the rows shown and the total of the last answer.
 */
export async function timeList(url: string, token: string, warmup: number, runs: number) {
  const times: number[] = [];
  let shown = 0;
  let total = 0;
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    const json = (await (await fetch(url, { headers: { token } })).json()) as {
      code: number;
      msg: string;
      data: { data: unknown[]; total: number };
    };
    const ms = performance.now() - t0;
    if (json.code !== 0) throw new Error(`${url}: ${json.msg}`);
    if (i >= warmup) times.push(ms);
    shown = json.data.data.length;
    total = json.data.total;
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), shown, total };
}
