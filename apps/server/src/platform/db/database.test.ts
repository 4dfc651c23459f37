import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqliteFiles } from '../../test/sqlite-files.js';
import { migrations } from './database.js';
import { walSyncer } from './wal-sync.js';

const sqlite = sqliteFiles();

/** A SQLite database migrated up to `version`, and the migrator to go on with. */
async function migratedTo(version: string) {
  const { handle } = sqlite.open();
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: 'ksp_migration',
    migrationLockTableName: 'ksp_migration_lock',
  });
  expect((await migrator.migrateTo(version)).error).toBeUndefined();
  return { handle, migrator };
}

describe('the SQLite database file', () => {
  it('copies committed writes into the database file in the background, and leaves no log at close', async () => {
    const { dir, handle } = sqlite.open();
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
    await sqlite.close();
    expect(() => statSync(`${file}-wal`)).toThrow();
  });
});

describe('durable SQLite commits (synchronous=FULL)', () => {
  /** A WAL flush that the test lets finish. */
  function heldFlushes() {
    const pending: (() => void)[] = [];
    return {
      pending,
      flush: () => new Promise<void>((resolve) => pending.push(resolve)),
      release() {
        for (const resolve of pending.splice(0)) resolve();
      },
    };
  }

  const settledWithin = async (p: Promise<unknown>, ms = 50) =>
    Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

  it('answers a write only once the WAL flush that follows its commit has returned, and no query reads it before', async () => {
    const held = heldFlushes();
    const { handle } = sqlite.open({ flushWal: held.flush });
    await sql`create table t (v text)`.execute(handle.db); // no rows changed: no flush
    expect(held.pending).toHaveLength(0);
    const write = handle.db.transaction().execute((trx) => sql`insert into t (v) values ('a')`.execute(trx));
    expect(await settledWithin(write)).toBe(false);
    expect(held.pending).toHaveLength(1);
    // The connection is held until the row is on disk: a reader cannot act on it before.
    const read = sql<{ n: number }>`select count(*) as n from t`.execute(handle.db);
    expect(await settledWithin(read)).toBe(false);
    held.release();
    await write;
    expect((await read).rows[0]?.n).toBe(1);
    expect(handle.walSync!.count).toBe(1);
  });

  it('has callers that ask for a flush while one is under way share the next one, never the one under way', async () => {
    const held = heldFlushes();
    const sync = walSyncer('/nonexistent/ksp.sqlite-wal', held.flush);
    const first = sync();
    expect(held.pending).toHaveLength(1);
    const later = [sync(), sync(), sync()];
    expect(held.pending).toHaveLength(1);
    held.release(); // the flush that started before the three asked
    await first;
    expect(await settledWithin(Promise.all(later))).toBe(false);
    expect(held.pending).toHaveLength(1); // one flush for the three
    held.release();
    await Promise.all(later);
    expect(sync.count).toBe(2);
  });

  it('flushes nothing when configured to NORMAL', () => {
    const { handle } = sqlite.open({ sqliteSynchronous: 'NORMAL' });
    expect(handle.walSync).toBeUndefined();
  });
});

describe('migration 004', () => {
  it('files earlier key records under their key for the trail', async () => {
    const { handle, migrator } = await migratedTo('003-keys');
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
  });
});

describe('migration 007', () => {
  it('counts the keys already there, and keeps counting', async () => {
    const { handle, migrator } = await migratedTo('006-jobs');
    await sql`insert into domain (id, name, kek_wrapped, created_at) values ('d', 'default', 'k', 'x')`.execute(
      handle.db,
    );
    const key = (id: string, state: string, at: string) =>
      sql`insert into kms_key (id, domain_id, name, algorithm, object_type, usage_mask, state,
            current_version, owner_name, exportable, deletable, description, labels, created_at, updated_at)
          values (${id}, 'd', ${id}, 'AES-256', 'symmetric', 12, ${state}, 1, 'admin', 0, 1, '', '{}', ${at}, ${at})`;
    await key('a', 'active', '2026-01-05T00:00:00.000Z').execute(handle.db);
    await key('b', 'active', '2026-01-06T00:00:00.000Z').execute(handle.db);
    await key('c', 'destroyed', '2026-02-01T00:00:00.000Z').execute(handle.db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const tally = () =>
      handle.db
        .selectFrom('kms_key_tally')
        .select(['state', 'month', 'keys'])
        .where('keys', '>', 0)
        .orderBy('month')
        .orderBy('state')
        .execute();
    expect(await tally()).toEqual([
      { state: 'active', month: '2026-01', keys: 2 },
      { state: 'destroyed', month: '2026-02', keys: 1 },
    ]);
    await handle.db.updateTable('kms_key').set({ state: 'deactivated' }).where('id', '=', 'a').execute();
    await handle.db.deleteFrom('kms_key').where('id', '=', 'c').execute();
    expect(await tally()).toEqual([
      { state: 'active', month: '2026-01', keys: 1 },
      { state: 'deactivated', month: '2026-01', keys: 1 },
    ]);
    expect((await migrator.migrateDown()).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await tally()).toHaveLength(2);
  });
});

describe('migration 033', () => {
  it('names roles per domain on SQLite without losing a grant (the table is rebuilt)', async () => {
    const { handle, migrator } = await migratedTo('032-audit-unsealed');
    const at = '2026-01-01T00:00:00.000Z';
    await sql`insert into domain (id, name, kek_wrapped, created_at) values ('d1', 'east', 'k', ${at}), ('d2', 'west', 'k', ${at})`.execute(
      handle.db,
    );
    await sql`insert into app_user (id, username, created_at, updated_at) values ('u1', 'ann', ${at}, ${at})`.execute(
      handle.db,
    );
    await sql`insert into role (id, name, type, permissions, created_at, domain_id)
      values ('r0', 'Operator', 'built-in', '[]', ${at}, null), ('r1', 'Ops', 'custom', '["key:read"]', ${at}, 'd1')`.execute(
      handle.db,
    );
    await sql`insert into user_role (user_id, role_id) values ('u1', 'r0'), ('u1', 'r1')`.execute(handle.db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const grants = await sql<{ role_id: string }>`select role_id from user_role order by role_id`.execute(
      handle.db,
    );
    expect(grants.rows).toEqual([{ role_id: 'r0' }, { role_id: 'r1' }]);
    const add = (id: string, domain: string | null) =>
      sql`insert into role (id, name, type, permissions, created_at, domain_id)
        values (${id}, 'Ops', 'custom', '[]', ${at}, ${domain})`.execute(handle.db);
    await add('r2', 'd2');
    await expect(add('r3', 'd1')).rejects.toThrow(/UNIQUE/);
    // Deleting a role still takes its grants with it: the foreign key survived the rebuild.
    await sql`delete from role where id = 'r1'`.execute(handle.db);
    const left = await sql<{ role_id: string }>`select role_id from user_role`.execute(handle.db);
    expect(left.rows).toEqual([{ role_id: 'r0' }]);
    const fk = await sql<{ v: number }>`select foreign_keys as v from pragma_foreign_keys`.execute(handle.db);
    expect(fk.rows[0]?.v).toBe(1);
  });
});

describe('migration 038', () => {
  it('reads the external certificates stored before it as CAs, and going back drops the end-entity ones', async () => {
    const { handle, migrator } = await migratedTo('037-tde-database');
    const at = '2026-01-01T00:00:00.000Z';
    const insert = (id: string, kind?: string) =>
      sql`insert into cert_external (id, domain_id, name, subject, issuer, serial, fingerprint, algorithm,
        not_before, not_after, self_signed, cert_der, created_at${kind ? sql`, kind` : sql``})
        values (${id}, 'd1', ${id}, 'CN=x', 'CN=x', '01', ${id}, 'EC-P256', ${at}, ${at}, 1, 'MA==', ${at}${
          kind ? sql`, ${kind}` : sql``
        })`.execute(handle.db);
    await insert('old');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await insert('leaf', 'certificate');
    const kinds = async () =>
      (
        await sql<{ id: string; kind: string }>`select id, kind from cert_external order by id`.execute(
          handle.db,
        )
      ).rows;
    expect(await kinds()).toEqual([
      { id: 'leaf', kind: 'certificate' },
      { id: 'old', kind: 'ca' },
    ]);
    expect((await migrator.migrateTo('037-tde-database')).error).toBeUndefined();
    const left = await sql<{ id: string }>`select id from cert_external`.execute(handle.db);
    expect(left.rows).toEqual([{ id: 'old' }]);
  });
});

describe('migration 039', () => {
  it('stores outside serials without the zero octet DER puts before a top bit, and leaves the rest', async () => {
    const { handle, migrator } = await migratedTo('038-external-leaf');
    const at = '2026-01-01T00:00:00.000Z';
    const serials = { padded: '0091DC', plain: '0A1B', ours: '4F00', zero: '00' };
    for (const [id, serial] of Object.entries(serials)) {
      await sql`insert into cert_external (id, domain_id, name, subject, issuer, serial, fingerprint, algorithm,
        not_before, not_after, self_signed, cert_der, created_at, kind)
        values (${id}, 'd1', ${id}, 'CN=x', 'CN=x', ${serial}, ${id}, 'EC-P256', ${at}, ${at}, 1, 'MA==', ${at}, 'ca')`.execute(
        handle.db,
      );
    }
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const stored = await sql<{
      id: string;
      serial: string;
    }>`select id, serial from cert_external order by id`.execute(handle.db);
    expect(stored.rows).toEqual([
      { id: 'ours', serial: '4F00' },
      { id: 'padded', serial: '91DC' },
      { id: 'plain', serial: '0A1B' },
      { id: 'zero', serial: '00' },
    ]);
  });
});
