/**
 * Backup and restore benchmark: prints figures, never fails a test run.
 *
 *   npm run build && npm run bench:backup -w bench
 *
 * For each engine it starts the built server, initializes it, makes a system backup key,
 * stops it and writes BENCH_AES (100,000) AES-256 keys and BENCH_EC (10,000) EC P-256 key
 * pairs (private + public, linked) straight into the database, each with its version row.
 * It restarts the server and times a system backup (create → completed, polled), downloads the
 * archive, then starts a second, fresh server on the same engine, uploads the backup key file
 * and the archive and times the restore. Peak RSS of each server is sampled from /proc while
 * it works; the growth is the peak less the RSS just before. Targets: ≥ 20,000 keys/s each way,
 * RSS growth ≤ 128 MB.
 *
 * The seeded material is random bytes of the size of wrapped material: a system restore
 * carries the domain KEKs and never unwraps key material (docs/backups.md), so the figures
 * are those of real keys.
 *
 *   BENCH_AES, BENCH_EC   key counts (defaults 100000 and 10000)
 *   BENCH_ENGINES         comma-separated subset of sqlite,postgres (default both)
 *   BENCH_PG_URL          PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api as contract } from '@ksp/contracts';
import type * as KeyColumns from '../apps/server/src/modules/key/key.columns.js';
import {
  api,
  initialize,
  login,
  pgSeedKeys,
  runPerEngine,
  seedSqliteFile,
  sqliteInsert,
  startServer,
  throwawayPostgres,
  withPgClient,
  type Engine,
} from './support.js';

const AES = Number(process.env.BENCH_AES ?? 100_000);
const EC = Number(process.env.BENCH_EC ?? 10_000);
const TARGET_RATE = 20_000;
const TARGET_RSS_MB = 128;
const BATCH = 5_000;
const WRAPPED = randomBytes(72).toString('base64');
const EC_WRAPPED = randomBytes(180).toString('base64');
const SPKI = randomBytes(91).toString('base64');

// The columns in the order the server writes them (its build; types from the sources).
const { keyColumns: KEY_COLUMNS, keyVersionColumns: VERSION_COLUMNS } = (await import(
  new URL('../apps/server/dist/modules/key/key.columns.js', import.meta.url).href
)) as typeof KeyColumns;

const id = (kind: number, n: number) => `00000000-0000-7000-8${kind}00-${n.toString(16).padStart(12, '0')}`;

/** The rows of key `n`: an AES key, or for n ≥ AES an EC pair (two keys). */
function rowsOf(n: number, domainId: string): { keys: unknown[][]; versions: unknown[][] } {
  const at = new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();
  const key = (
    kid: string,
    name: string,
    algorithm: string,
    type: string,
    usage: number,
    linked: string | null,
  ) => [
    kid,
    domainId,
    name,
    algorithm,
    type,
    usage,
    'active',
    1,
    null,
    'bench',
    0,
    1,
    linked,
    '',
    '{}',
    null,
    0,
    0,
    at,
    null,
    null,
    null,
    null,
    at,
    at,
  ];
  const version = (kid: string, material: string | null, pub: string | null) => [
    kid,
    1,
    material,
    pub,
    'A1B2C3',
    null,
    at,
  ];
  if (n < AES) {
    const k = id(1, n);
    return {
      keys: [key(k, `aes-${n}`, 'AES-256', 'symmetric', 12, null)],
      versions: [version(k, WRAPPED, null)],
    };
  }
  const priv = id(2, n);
  const pub = id(3, n);
  return {
    keys: [
      key(priv, `ec-${n}`, 'EC-P256', 'private', 1, pub),
      key(pub, `ec-${n}.pub`, 'EC-P256', 'public', 2, priv),
    ],
    versions: [version(priv, EC_WRAPPED, SPKI), version(pub, null, SPKI)],
  };
}

async function seed(engine: Engine, dataDir: string, url: string | null): Promise<void> {
  const total = AES + EC;
  if (engine === 'sqlite') {
    seedSqliteFile(join(dataDir, 'ksp.sqlite'), {
      total,
      batch: BATCH,
      writer: (db) => {
        const domainId = (db.prepare("select id from domain where name = 'root'").get() as { id: string }).id;
        const insertKey = sqliteInsert(db, 'kms_key', KEY_COLUMNS);
        const insertVersion = sqliteInsert(db, 'kms_key_version', VERSION_COLUMNS);
        return (n) => {
          const rows = rowsOf(n, domainId);
          for (const k of rows.keys) insertKey.run(k);
          for (const v of rows.versions) insertVersion.run(v);
        };
      },
    });
    return;
  }
  await withPgClient(url!, async (client) => {
    const domainId = (await client.query<{ id: string }>("select id from domain where name = 'root'"))
      .rows[0]!.id;
    await pgSeedKeys(client, {
      total,
      batch: BATCH,
      columns: { keys: KEY_COLUMNS, versions: VERSION_COLUMNS },
      rowsOf: (i) => rowsOf(i, domainId),
    });
  });
}

const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
};

/** Runs `work` while sampling the process's RSS: its duration, and peak growth over the start. */
async function watched<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; growthMb: number }> {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - t0) / 1000, growthMb: Math.max(peak, rssMb(pid)) - before };
  } finally {
    clearInterval(timer);
  }
}

interface Backup {
  id: string;
  status: string;
  size: number;
  error: string | null;
}

async function runEngine(engine: Engine): Promise<string[]> {
  const dirs = [
    mkdtempSync(join(tmpdir(), 'ksp-bench-backup-')),
    mkdtempSync(join(tmpdir(), 'ksp-bench-restore-')),
  ];
  const databases =
    engine === 'postgres' ? [await throwawayPostgres(), await throwawayPostgres()] : [null, null];
  const envOf = (i: number): Record<string, string> => ({
    KSP_DATA_DIR: dirs[i]!,
    ...(databases[i] ? { KSP_DATABASE_URL: databases[i].url } : {}),
  });
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    let a = await startServer(envOf(0));
    servers.push(a);
    let token = await initialize(a.base);
    const key = await api<{ id: string }>(
      a.base,
      contract.backupKey.create.path,
      { name: 'bench', scope: 'system' },
      token,
    );
    await a.stop();
    const t0 = performance.now();
    await seed(engine, dirs[0]!, databases[0]?.url ?? null);
    const keys = AES + 2 * EC;
    console.error(`${engine}: ${keys} keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    a = await startServer(envOf(0));
    servers.push(a);
    token = (await login(a.base)).token;

    const backup = await watched(a.pid, async () => {
      let b = await api<Backup>(
        a.base,
        contract.backup.create.path,
        { scope: 'system', description: 'bench' },
        token,
      );
      while (b.status === 'backing_up') {
        await new Promise((r) => setTimeout(r, 50));
        const res = await fetch(`${a.base}${contract.backup.detail.path}?id=${b.id}`, { headers: { token } });
        b = ((await res.json()) as { data: Backup }).data;
      }
      if (b.status !== 'completed') throw new Error(`backup failed: ${b.error}`);
      return b;
    });
    const archivePath = join(dirs[0]!, 'bench.kspb');
    const res = await fetch(`${a.base}${contract.backup.download.path}?id=${backup.value.id}`, {
      headers: { token },
    });
    writeFileSync(archivePath, Buffer.from(await res.arrayBuffer()));
    const keyFile = await fetch(a.base + contract.backupKey.download.path, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ id: key.id, password: 'Bench-Key-Pass-1', hint: '' }),
    }).then((r) => r.text());
    await a.stop();

    const b = await startServer(envOf(1));
    servers.push(b);
    const tokenB = await initialize(b.base);
    await api(
      b.base,
      contract.backupKey.upload.path,
      { file: keyFile, password: 'Bench-Key-Pass-1' },
      tokenB,
    );
    const form = new FormData();
    form.set('file', await openAsBlob(archivePath), 'bench.kspb');
    const up = (await (
      await fetch(b.base + contract.backup.upload.path, {
        method: 'POST',
        headers: { token: tokenB },
        body: form,
      })
    ).json()) as { code: number; msg: string; data: Backup };
    if (up.code !== 0) throw new Error(`upload: ${up.msg}`);
    const restore = await watched(b.pid, () =>
      api<Backup>(b.base, contract.backup.restore.path, { id: up.data.id }, tokenB),
    );
    const rate = (s: number) => Math.round(keys / s);
    const ok = (r: number, g: number) => (r >= TARGET_RATE && g <= TARGET_RSS_MB ? 'yes' : 'NO');
    return [
      `| ${engine} | backup | ${keys} | ${backup.seconds.toFixed(2)} | ${rate(backup.seconds)} | ${backup.growthMb.toFixed(0)} | ${(backup.value.size / 1048576).toFixed(1)} | ${ok(rate(backup.seconds), backup.growthMb)} |`,
      `| ${engine} | restore (fresh install) | ${keys} | ${restore.seconds.toFixed(2)} | ${rate(restore.seconds)} | ${restore.growthMb.toFixed(0)} | | ${ok(rate(restore.seconds), restore.growthMb)} |`,
    ];
  } finally {
    for (const s of servers) await s.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    for (const d of databases) await d?.drop();
  }
}

runPerEngine({
  file: 'bench-backup.md',
  title: `KSP backup benchmark — ${new Date().toISOString()} — node ${process.version}, ${AES} AES-256 keys + ${EC} EC P-256 pairs`,
  header: `| engine | step | keys | seconds | keys/s | RSS growth MB | archive MB | ≥ ${TARGET_RATE}/s and ≤ ${TARGET_RSS_MB} MB |`,
  runEngine,
});
