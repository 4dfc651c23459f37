import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase } from '../platform/db/database.js';

/**
 * Once per `vitest run`: a migrated SQLite file and a migrated PostgreSQL template database
 * that every test's database is copied from (docs/testing.md#databases), instead of
 * migrating an empty database for each test. Teardown drops every database of this run,
 * including those a test's `close` left to drop in the background.
 */

const PG_ADMIN_URL = process.env.KSP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Names this run's PostgreSQL databases: `ksp_test_<runId>_…`. */
    kspTestRunId: string;
    /** The migrated SQLite file to copy (empty: migrate each database). */
    kspSqliteTemplate: string;
    /** The migrated PostgreSQL template database (empty: no PostgreSQL, or migrate each database). */
    kspPgTemplate: string;
  }
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function sqliteTemplate(dir: string): Promise<string> {
  const handle = openDatabase({ url: null, dataDir: dir, sqliteSynchronous: 'NORMAL' });
  await migrate(handle.db);
  await handle.close();
  // The closed file holds everything (the WAL is checkpointed on close); copy it alone.
  const file = join(dir, 'template.sqlite');
  copyFileSync(join(dir, 'ksp.sqlite'), file);
  return file;
}

async function pgTemplate(runId: string): Promise<string> {
  const name = `ksp_test_${runId}_template`;
  try {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
  } catch {
    return ''; // PostgreSQL is not reachable: engines() says so (and fails in CI).
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const handle = openDatabase({ url: url.toString(), dataDir: tmpdir() });
  await migrate(handle.db);
  await handle.close();
  return name;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'ksp-test-template-'));
  const [sqlite, postgres] = await Promise.all([sqliteTemplate(dir), pgTemplate(runId)]);
  project.provide('kspTestRunId', runId);
  project.provide('kspSqliteTemplate', sqlite);
  project.provide('kspPgTemplate', postgres);
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (!postgres) return;
    await admin(async (c) => {
      const { rows } = await c.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`ksp\\_test\\_${runId}\\_%`],
      );
      for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  };
}
