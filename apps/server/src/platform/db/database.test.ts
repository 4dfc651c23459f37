import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database.js';

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
