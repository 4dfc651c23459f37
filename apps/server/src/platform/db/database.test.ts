import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, openDatabase, type DatabaseHandle } from './database.js';

describe('the SQLite database file', () => {
  let dir: string;
  let handle: DatabaseHandle | null = null;
  afterEach(async () => {
    await handle?.close();
    handle = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed writes into the database file in the background, and leaves no log at close', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksp-db-'));
    handle = openDatabase({ url: null, dataDir: dir });
    const file = join(dir, 'ksp.sqlite');
    await sql`create table t (v text)`.execute(handle.db);
    const before = statSync(file).size;
    // 2 MB in one commit: with checkpoints left to the connection this stays in the WAL.
    const big = 'x'.repeat(1024);
    await handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 2048; i++) await sql`insert into t (v) values (${big})`.execute(trx);
    });
    const deadline = Date.now() + 5000;
    while (statSync(file).size < before + 2_000_000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statSync(file).size).toBeGreaterThan(before + 2_000_000);
    const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db);
    expect(rows.rows[0]?.n).toBe(2048);
    await handle.close();
    handle = null;
    expect(() => statSync(`${file}-wal`)).toThrow();
  });
});

describe('migration 004', () => {
  it('files earlier key records under their key for the trail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ksp-db-'));
    const handle = openDatabase({ url: null, dataDir: dir });
    try {
      const migrator = new Migrator({
        db: handle.db,
        provider: { getMigrations: () => Promise.resolve(migrations) },
        migrationTableName: 'ksp_migration',
        migrationLockTableName: 'ksp_migration_lock',
      });
      expect((await migrator.migrateTo('003-keys')).error).toBeUndefined();
      const record = (id: string, details: string) =>
        sql`insert into audit_log (id, at, username, domain_name, action, target, result, source_ip, details)
            values (${id}, '2026-01-01T00:00:00.000Z', 'admin', 'default', 'x', 'y', 'success', '::1', ${details})`;
      await record('a', '{"key_id":"k-1","version":2}').execute(handle.db);
      await record('b', '{"user":"u"}').execute(handle.db);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await sql<{ id: string; object_id: string | null }>`
        select id, object_id from audit_log order by id`.execute(handle.db);
      expect(rows.rows).toEqual([
        { id: 'a', object_id: 'k-1' },
        { id: 'b', object_id: null },
      ]);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
