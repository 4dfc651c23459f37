import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type Migration,
  type SqliteDatabase,
  type Transaction,
} from 'kysely';
import { to as copyTo } from 'pg-copy-streams';
import { createPgPool, splitHosts } from './pg-failover.js';
import { copyLinesSql } from './copy-out.js';
import { startCheckpointer } from './checkpointer.js';
import { SyncedSqliteDialect, walSyncer, type DeferredFlush, type WalSync } from './wal-sync.js';
import type { Database } from './schema.js';
import * as m001 from './migrations/001-foundation.js';
import * as m002 from './migrations/002-access.js';
import * as m003 from './migrations/003-keys.js';
import * as m004 from './migrations/004-audit-object.js';
import * as m005 from './migrations/005-scopes.js';
import * as m006 from './migrations/006-jobs.js';
import * as m007 from './migrations/007-key-list.js';
import * as m008 from './migrations/008-audit-count.js';
import * as m009 from './migrations/009-certificates.js';
import * as m010 from './migrations/010-quantum.js';
import * as m011 from './migrations/011-audit-severity-source.js';
import * as m012 from './migrations/012-audit-chain.js';
import * as m013 from './migrations/013-syslog.js';
import * as m014 from './migrations/014-dashboard.js';
import * as m015 from './migrations/015-alarms.js';
import * as m016 from './migrations/016-client-log.js';
import * as m017 from './migrations/017-license.js';
import * as m018 from './migrations/018-hsm.js';
import * as m019 from './migrations/019-backup.js';
import * as m020 from './migrations/020-scheduler.js';
import * as m021 from './migrations/021-credential.js';
import * as m022 from './migrations/022-backup-node.js';
import * as m023 from './migrations/023-ssh-server.js';
import * as m024 from './migrations/024-client.js';
import * as m025 from './migrations/025-client-config-epoch.js';
import * as m026 from './migrations/026-ssh-session.js';
import * as m027 from './migrations/027-tde-policy.js';
import * as m028 from './migrations/028-tde-client.js';
import * as m029 from './migrations/029-tde-auth-binary.js';
import * as m030 from './migrations/030-kadp-operation.js';
import * as m031 from './migrations/031-session-parent.js';
import * as m032 from './migrations/032-audit-unsealed.js';
import * as m033 from './migrations/033-role-name-per-domain.js';
import * as m034 from './migrations/034-license-quota.js';
import * as m035 from './migrations/035-cert-key-owner.js';
import * as m036 from './migrations/036-kmip-client.js';
import * as m037 from './migrations/037-tde-database.js';
import * as m038 from './migrations/038-external-leaf.js';
import * as m039 from './migrations/039-serial-value.js';

export type Db = Kysely<Database>;
/** A store function takes either the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /** Where the data lives, without credentials (for logs). */
  location: string;
  /** How another connection reaches the same data (the agent listener's thread); null: it cannot (`:memory:`). */
  connection: DatabaseConnection | null;
  /** SQLite with `synchronous=FULL`: the WAL flushes that writers wait for (wal-sync.ts). */
  walSync?: WalSync;
  /** Inside a transaction: leave its flush to the caller (`SyncedSqliteDialect.deferFlush`). */
  deferFlush?: () => DeferredFlush;
  /** PostgreSQL only: the rows of `select` (one text column), streamed by COPY (copy-out.ts). */
  copyOut?: CopyOut;
  close(): Promise<void>;
}

export type DatabaseConnection = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/**
 * Streams the one text column of `select` (full SQL, parameters inlined) line by line, as
 * `copyLinesSql` sends it. The connection is held until the stream ends; a stream destroyed
 * before its end (a download broken off) closes the connection, which stops the query.
 */
export type CopyOut = (select: string) => Promise<AsyncIterable<Buffer> & { destroy(): void }>;

/** Every migration, by name, in order (exported for the migration tests). */
export const migrations: Record<string, Migration> = {
  '001-foundation': m001,
  '002-access': m002,
  '003-keys': m003,
  '004-audit-object': m004,
  '005-scopes': m005,
  '006-jobs': m006,
  '007-key-list': m007,
  '008-audit-count': m008,
  '009-certificates': m009,
  '010-quantum': m010,
  '011-audit-severity-source': m011,
  '012-audit-chain': m012,
  '013-syslog': m013,
  '014-dashboard': m014,
  '015-alarms': m015,
  '016-client-log': m016,
  '017-license': m017,
  '018-hsm': m018,
  '019-backup': m019,
  '020-scheduler': m020,
  '021-credential': m021,
  '022-backup-node': m022,
  '023-ssh-server': m023,
  '024-client': m024,
  '025-client-config-epoch': m025,
  '026-ssh-session': m026,
  '027-tde-policy': m027,
  '028-tde-client': m028,
  '029-tde-auth-binary': m029,
  '030-kadp-operation': m030,
  '031-session-parent': m031,
  '032-audit-unsealed': m032,
  '033-role-name-per-domain': m033,
  '034-license-quota': m034,
  '035-cert-key-owner': m035,
  '036-kmip-client': m036,
  '037-tde-database': m037,
  '038-external-leaf': m038,
  '039-serial-value': m039,
};

export interface OpenOptions {
  url: string | null;
  dataDir: string;
  /**
   * SQLite `synchronous`. FULL (default) syncs the WAL at each commit: an answered write
   * survives a power loss. NORMAL syncs only at checkpoints: faster, but the last commits
   * can be lost on power loss (never corrupted). Ignored for PostgreSQL.
   */
  sqliteSynchronous?: 'FULL' | 'NORMAL';
  /** With FULL: how the WAL file is flushed (fdatasync by default; tests hold it). */
  flushWal?: () => Promise<void>;
}

export function openDatabase(options: OpenOptions): DatabaseHandle {
  if (options.url && /^postgres(ql)?:\/\//.test(options.url)) {
    // One host, or several (pg_auto_failover's URI): then the pool follows the primary (pg-failover.ts).
    const pool = createPgPool(options.url, {
      max: 10,
      onSwitch: (from, to) => console.warn(`PostgreSQL primary is now ${to} (was ${from})`),
    });
    // An idle client can lose its connection (server restart, failover, admin command):
    // pg reports it on the pool, and an unhandled 'error' event would end the process.
    // The pool drops that client and opens a new one on demand. All idle clients fail
    // together in an outage: say so once, and again only after a connection has succeeded.
    let lossReported = false;
    pool.on('connect', (client) => {
      lossReported = false;
      // pg-pool listens for a client's 'error' only while it is idle. A connection that drops
      // while checked out (mid-query, mid-transaction) emits 'error' with no listener, which
      // would end the process; the query itself already fails with that error, so the event
      // has nothing more to say.
      client.on('error', () => undefined);
    });
    pool.on('error', (err) => {
      if (lossReported) return;
      lossReported = true;
      console.warn(`PostgreSQL idle connection(s) lost (${err.message}); reopened when needed`);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const { hosts } = splitHosts(options.url);
    const path = /^[^/]*\/\/[^/]*(\/[^?#]*)?/.exec(options.url)?.[1] ?? '';
    return {
      db,
      engine: 'postgres',
      location: `postgres://${hosts.map((h) => h.replace(/^.*@/, '')).join(',')}${path}`,
      connection: { engine: 'postgres', url: options.url },
      copyOut: async (select) => {
        const client = await pool.connect();
        let released = false;
        const release = (broken?: Error) => {
          if (released) return;
          released = true;
          // With an error the pool closes the connection instead of reusing it mid-COPY.
          client.release(broken);
        };
        const stream = client.query(copyTo(copyLinesSql(select)));
        stream.on('end', () => release());
        stream.on('error', (err: Error) => release(err));
        stream.on('close', () => release(stream.readableEnded ? undefined : new Error('COPY broken off')));
        return stream;
      },
      close: () => db.destroy(),
    };
  }
  if (options.url && !options.url.startsWith('sqlite:')) {
    throw new Error('KSP_DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  let file: string;
  if (options.url) {
    file = options.url.slice('sqlite:'.length);
  } else {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    file = join(options.dataDir, 'ksp.sqlite');
  }
  const sqlite = new BetterSqlite3(file);
  if (file !== ':memory:') chmodSync(file, 0o600);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // FULL is kept by flushing the WAL off the event loop before a writer is answered
  // (wal-sync.ts); the connection itself never waits for the disk.
  const full = (options.sqliteSynchronous ?? 'FULL') === 'FULL' && file !== ':memory:';
  sqlite.pragma('synchronous = NORMAL');
  const checkpointer =
    file === ':memory:' ? null : startCheckpointer(sqlite, file, (message) => console.warn(message));
  const config = { database: withStatementCache(sqlite) };
  const walSync = full ? walSyncer(`${file}-wal`, options.flushWal) : undefined;
  const synced = walSync ? new SyncedSqliteDialect(config, sqlite, walSync) : null;
  const db = new Kysely<Database>({ dialect: synced ?? new SqliteDialect(config) });
  return {
    db,
    engine: 'sqlite',
    location: file,
    connection: file === ':memory:' ? null : { engine: 'sqlite', file },
    ...(walSync && synced ? { walSync, deferFlush: () => synced.deferFlush() } : {}),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
      await walSync?.close();
    },
  };
}

/** The engine behind a database or transaction, for the few statements that differ. */
export function engineOf(db: Executor): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** A UNIQUE constraint refused the write (SQLite and PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** Escapes the LIKE wildcards (and the escape character) in a user's search text. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Prepared statements kept per SQL text; SQLite compiles a statement once instead of per call. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * Kysely's SQLite driver prepares every query afresh, which costs more than running it.
 * better-sqlite3 statements are reusable, so they are cached by their SQL text (bounded;
 * the oldest is dropped first). A statement still iterating is never handed out twice.
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(sqlText: string) {
      const cached = cache.get(sqlText);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sqlText);
      if (!cached) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: 'ksp_migration',
    migrationLockTableName: 'ksp_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
