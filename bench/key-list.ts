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
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { api as contract } from '@ksp/contracts';
import type * as KeyColumns from '../apps/server/src/modules/key/key.columns.js';
import type { KeyTable, KeyVersionTable } from '../apps/server/src/platform/db/schema.js';
import { storedKeyRow } from '../apps/server/src/test/key-row.js';
import {
  aesKey,
  initialize,
  login,
  pgSeedKeys,
  runPerEngine,
  seedSqliteFile,
  serverData,
  sqliteInsert,
  startServer,
  timeList,
  withPgClient,
  type Engine,
} from './support.js';

// The columns in the order the server writes them (its build; types from the sources).
const { keyColumns, keyVersionColumns } = (await import(
  new URL('../apps/server/dist/modules/key/key.columns.js', import.meta.url).href
)) as typeof KeyColumns;

const KEYS = Number(process.env.BENCH_KEYS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const WARMUP = 5;
const TARGET_MS = 50;
const PAGE_SIZE = 20;

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

function keyRow(n: number, owner: Owner): KeyTable {
  const kind = KINDS[n % KINDS.length]!;
  const state = STATES[Math.floor(n / KINDS.length) % STATES.length]!;
  const at = new Date(START_MS + Math.floor((n * SPAN_MS) / KEYS)).toISOString();
  return storedKeyRow({
    id: seedId(n),
    domain_id: owner.domainId,
    name: `${APPS[n % APPS.length]}-${n}`,
    algorithm: kind.algorithm,
    object_type: kind.object_type,
    usage_mask: kind.usage_mask,
    state,
    owner_id: owner.ownerId,
    owner_name: owner.ownerName,
    activation_date: state === 'pre-active' ? null : at,
    deactivation_date: state === 'deactivated' || state === 'destroyed' ? at : null,
    destroyed_at: state === 'destroyed' ? at : null,
    created_at: at,
  });
}

/** A row's values in the order of the server's column list. */
const valuesOf = <T, C extends keyof T>(row: T, columns: readonly C[]): unknown[] =>
  columns.map((c) => row[c]);

/** Stands for wrapped material: the list never unwraps it, but the row has its real size. */
const WRAPPED = randomBytes(72).toString('base64');

function versionRow(n: number): KeyVersionTable {
  const at = new Date(START_MS + Math.floor((n * SPAN_MS) / KEYS)).toISOString();
  const destroyed = STATES[Math.floor(n / KINDS.length) % STATES.length] === 'destroyed';
  return {
    key_id: seedId(n),
    version: 1,
    material_wrapped: destroyed ? null : WRAPPED,
    public_key: null,
    kcv: 'A1B2C3',
    fingerprint: null,
    created_at: at,
  };
}

const BATCH = 10_000;

function seedSqlite(file: string): void {
  seedSqliteFile(file, {
    total: KEYS,
    batch: BATCH,
    writer: (db) => {
      const owner = db
        .prepare(
          "select domain_id as domainId, owner_id as ownerId, owner_name as ownerName from kms_key where name = 'bench-seed-1'",
        )
        .get() as Owner;
      const insertKey = sqliteInsert(db, 'kms_key', keyColumns);
      const insertVersion = sqliteInsert(db, 'kms_key_version', keyVersionColumns);
      return (n) => {
        insertKey.run(valuesOf(keyRow(n, owner), keyColumns));
        insertVersion.run(valuesOf(versionRow(n), keyVersionColumns));
      };
    },
  });
}

/** Multi-row inserts as one array per column (`unnest`), BATCH rows per statement. */
function seedPostgres(url: string): Promise<void> {
  return withPgClient(url, async (client) => {
    const { rows } = await client.query<{ domainid: string; ownerid: string | null; ownername: string }>(
      "select domain_id as domainId, owner_id as ownerId, owner_name as ownerName from kms_key where name = 'bench-seed-1'",
    );
    const owner: Owner = {
      domainId: rows[0]!.domainid,
      ownerId: rows[0]!.ownerid,
      ownerName: rows[0]!.ownername,
    };
    await pgSeedKeys(client, {
      total: KEYS,
      batch: BATCH,
      columns: { keys: keyColumns, versions: keyVersionColumns },
      rowsOf: (i) => ({
        keys: [valuesOf(keyRow(i, owner), keyColumns)],
        versions: [valuesOf(versionRow(i), keyVersionColumns)],
      }),
    });
  });
}

interface Scenario {
  name: string;
  query: Record<string, string | number>;
}

function measure(base: string, token: string, scenario: Scenario) {
  const qs = new URLSearchParams(
    Object.entries(scenario.query).map(([k, v]): [string, string] => [k, String(v)]),
  );
  return timeList(`${base}${contract.key.list.path}?${qs.toString()}`, token, WARMUP, RUNS);
}

async function runEngine(engine: Engine): Promise<string[]> {
  const data = await serverData(engine, 'ksp-bench-list-');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(data.env);
    const token = await initialize(server.base);
    for (let i = 1; i <= 3; i++) await aesKey(server.base, token, `bench-seed-${i}`);
    // Seeded with the server stopped, as a restore would be, so its caches start cold.
    await server.stop();
    const t0 = performance.now();
    if (engine === 'sqlite') seedSqlite(join(data.dir, 'ksp.sqlite'));
    else await seedPostgres(data.databaseUrl!);
    console.error(`${engine}: ${KEYS} keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    server = await startServer(data.env);
    const { base } = server;
    const session = await login(base);
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
    await server?.stop();
    await data.remove();
  }
}

runPerEngine({
  file: 'bench-key-list.md',
  title: `KSP key list benchmark — ${new Date().toISOString()} — node ${process.version}, ${KEYS} seeded keys, ${RUNS} sequential requests per row`,
  header: `| engine | scenario | rows | total | p50 ms | p95 ms | p95 ≤ ${TARGET_MS} ms |`,
  runEngine,
});
