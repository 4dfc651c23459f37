/**
 * Log benchmark (issue 12): prints figures, never fails a test run.
 *
 *   npm run build && npm run bench:log -w bench
 *
 * For each engine it starts the built server, initializes it, stops it and writes BENCH_RECORDS
 * (1,000,000 by default) audit records of the root domain straight into `audit_log`, spread over
 * 90 days, with a mix of actions and results, marked as sealed elsewhere so the sealing job
 * leaves them. It restarts the server and times, through the API and one request at a time, the
 * log's first page, a filtered page (action + result + a 30-day range), the deepest page by
 * number (pages by number stop at the first 100,000 records) and a deep page half-way down by
 * position (with the page before's `next_cursor`), p50/p95
 * against p95 ≤ 50 ms; then it exports every record as CSV and as JSON and prints the server's
 * peak resident memory growth during each export against ≤ 64 MB.
 *
 *   BENCH_RECORDS   records written (default 1000000)
 *   BENCH_RUNS      timed requests per scenario (default 30, after 3 warm-up requests)
 *   BENCH_ENGINES   comma-separated subset of sqlite,postgres (default both)
 *   BENCH_EXPORT    0: skip the exports
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api as contract } from '@ksp/contracts';
import { AUDIT_COLUMNS } from '../apps/server/src/platform/db/journal.js';
import {
  initialize,
  login,
  pgInsertRows,
  runPerEngine,
  seedSqliteFile,
  serverData,
  sqliteInsert,
  startServer,
  timeList,
  withPgClient,
  type Engine,
} from './support.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const TARGET_MS = 50;
const TARGET_EXPORT_MB = 64;
const PAGE_SIZE = 20;
const BATCH = 10_000;
const DAY = 86_400_000;

const ACTIONS = [
  'key.encrypt',
  'key.decrypt',
  'key.create',
  'user.login',
  'cert.issue',
  'key.sign',
  'role.update',
];
// What the journal writes, and the place in the chain that sealing adds.
const COLUMNS = [...AUDIT_COLUMNS, 'chain_seq', 'chain_mac'] as const;

interface Domain {
  id: string;
  name: string;
}

/** Record n: newest last, over 90 days before now; one in ten a failure. */
function row(n: number, domain: Domain, now: number): unknown[] {
  const at = new Date(now - 90 * DAY + Math.floor((n / RECORDS) * 90 * DAY)).toISOString();
  const failure = n % 10 === 7;
  const action = ACTIONS[n % ACTIONS.length]!;
  const record: Record<(typeof COLUMNS)[number], unknown> = {
    id: `0190${n.toString(16).padStart(8, '0')}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`,
    at,
    user_id: null,
    username: `user-${n % 50}`,
    domain_id: domain.id,
    domain_name: domain.name,
    action,
    target: `key-${n % 5000}`,
    result: failure ? 'failure' : 'success',
    source_ip: `10.0.${(n >> 8) & 255}.${n & 255}`,
    details: JSON.stringify({ version: 1, reason: failure ? 'bench failure' : undefined }),
    object_id: null,
    count: 1,
    severity: failure ? 'WARNING' : 'INFO',
    source: n % 3 === 0 ? 'api' : 'web',
    area: action.split('.')[0],
    // Sealed elsewhere (a negative place): the sealing job leaves them, the chain stays apart.
    chain_seq: -1 - n,
    chain_mac: null,
  };
  return COLUMNS.map((c) => record[c]);
}

function seedSqlite(file: string): void {
  const now = Date.now();
  seedSqliteFile(file, {
    total: RECORDS,
    batch: BATCH,
    writer: (db) => {
      const domain = db.prepare("select id, name from domain where name = 'root'").get() as Domain;
      const insert = sqliteInsert(db, 'audit_log', COLUMNS);
      return (n) => insert.run(row(n, domain, now));
    },
    after: (db) => db.exec('analyze'),
  });
}

function seedPostgres(url: string): Promise<void> {
  return withPgClient(url, async (client) => {
    const domain = (await client.query<Domain>("select id, name from domain where name = 'root'")).rows[0]!;
    const types = COLUMNS.map((c) => (c === 'count' ? 'int' : c === 'chain_seq' ? 'bigint' : 'text'));
    const now = Date.now();
    for (let n = 0; n < RECORDS; n += BATCH) {
      const rows: unknown[][] = [];
      for (let i = n; i < Math.min(RECORDS, n + BATCH); i++) rows.push(row(i, domain, now));
      await pgInsertRows(client, 'audit_log', COLUMNS, types, rows);
    }
    await client.query('vacuum analyze audit_log');
  });
}

function measure(base: string, token: string, query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return timeList(`${base}${contract.log.list.path}?${qs.toString()}`, token, WARMUP, RUNS);
}

/** The `next_cursor` of the page before `page` (read once, by number, untimed). */
async function cursorBefore(base: string, token: string, page: number): Promise<string> {
  // By position all the way: pages by number stop at the first 100,000 records.
  const skip = (page - 1) * PAGE_SIZE;
  let read = 0;
  let after: string | null = null;
  while (read < skip) {
    const size = Math.min(1000, skip - read);
    const qs = new URLSearchParams({ page: '1', page_size: String(size), ...(after ? { after } : {}) });
    const res = await fetch(`${base}${contract.log.list.path}?${qs.toString()}`, { headers: { token } });
    const json = (await res.json()) as { data: { next_cursor: string | null } };
    if (!json.data.next_cursor) throw new Error(`no next_cursor after record ${read}`);
    after = json.data.next_cursor;
    read += size;
  }
  if (!after) throw new Error('the deep page must be past the first');
  return after;
}

/** The process's resident memory now and its peak so far (VmHWM), in MB. */
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Exports everything in `format`; answers bytes, lines, seconds and the peak RSS growth. */
async function exportAll(base: string, token: string, pid: number, format: 'csv' | 'json') {
  // Reset the peak so it measures this export only.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = memory(pid).rss;
  const t0 = performance.now();
  const res = await fetch(`${base}${contract.log.export.path}?format=${format}`, { headers: { token } });
  if (!res.ok || !res.body) throw new Error(`export ${format}: HTTP ${res.status}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { bytes, lines, seconds: (performance.now() - t0) / 1000, growth: memory(pid).peak - before };
}

async function runEngine(engine: Engine): Promise<string[]> {
  const data = await serverData(engine, 'ksp-bench-log-');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(data.env);
    await initialize(server.base);
    await server.stop();
    const t0 = performance.now();
    if (engine === 'sqlite') seedSqlite(join(data.dir, 'ksp.sqlite'));
    else await seedPostgres(data.databaseUrl!);
    console.error(
      `${engine}: ${RECORDS} records written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    server = await startServer(data.env);
    const { token } = await login(server.base);
    const from = new Date(Date.now() - 30 * DAY).toISOString();
    const deep = Math.floor(RECORDS / 2 / PAGE_SIZE);
    // The deepest page by number: pages by number stop at the first 100,000 records.
    const deepest = Math.floor(Math.min(RECORDS, 100_000) / PAGE_SIZE);
    const scenarios: [string, Record<string, string | number>][] = [
      ['first page', { page: 1, page_size: PAGE_SIZE }],
      [
        'filtered: key.decrypt + failure + last 30 days',
        { page: 1, page_size: PAGE_SIZE, action: 'key.decrypt', result: 'failure', from },
      ],
      [
        'filtered: area key. + last 30 days, page 10',
        { page: 10, page_size: PAGE_SIZE, action: 'key.', from },
      ],
      [
        `deepest page by number (${deepest} of ${PAGE_SIZE}, records ${((deepest - 1) * PAGE_SIZE + 1).toLocaleString('en')}–)`,
        { page: deepest, page_size: PAGE_SIZE },
      ],
      [
        `deep page by position (after record ${((deep - 1) * PAGE_SIZE).toLocaleString('en')})`,
        { page: deep, page_size: PAGE_SIZE, after: await cursorBefore(server.base, token, deep) },
      ],
    ];
    const lines: string[] = [];
    for (const [name, query] of scenarios) {
      const r = await measure(server.base, token, query);
      lines.push(
        `| ${engine} | ${name} | ${r.shown} | ${r.total} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p95 <= TARGET_MS ? 'yes' : 'NO'} |`,
      );
    }
    const { pid } = server;
    for (const format of process.env.BENCH_EXPORT === '0' ? [] : (['csv', 'json'] as const)) {
      if (!pid) break;
      const e = await exportAll(server.base, token, pid, format);
      lines.push(
        `| ${engine} | export all as ${format}: ${(e.bytes / 1e6).toFixed(0)} MB, ${e.lines} lines in ${e.seconds.toFixed(1)} s | | | | peak RSS +${e.growth.toFixed(0)} MB | ${e.growth <= TARGET_EXPORT_MB ? 'yes' : 'NO'} (≤ ${TARGET_EXPORT_MB} MB) |`,
      );
    }
    return lines;
  } finally {
    await server?.stop();
    await data.remove();
  }
}

runPerEngine({
  file: 'bench-log.md',
  title: `KSP log benchmark — ${new Date().toISOString()} — node ${process.version}, ${RECORDS} seeded records, ${RUNS} sequential requests per row`,
  header: `| engine | scenario | rows | total | p50 ms | p95 ms | target met |`,
  runEngine,
});
