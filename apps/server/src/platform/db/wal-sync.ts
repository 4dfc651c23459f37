import { AsyncLocalStorage } from 'node:async_hooks';
import { open } from 'node:fs/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type SqliteDialectConfig } from 'kysely';

/**
 * Durable SQLite commits without stalling the event loop.
 *
 * With `synchronous=FULL` SQLite flushes the WAL inside COMMIT, and better-sqlite3 runs COMMIT
 * on the event loop: every commit stopped every request for one disk flush (1–4 ms on the
 * project's machines, far more than the commit itself). Here the connection commits with
 * `synchronous=NORMAL` (the transaction is in the WAL file, in the operating system's cache)
 * and the writer is answered only after an fdatasync of the WAL file, run on libuv's thread
 * pool, has returned. The guarantee is FULL's (an answered write survives a power loss); the
 * event loop serves other requests while the disk flushes, and writers that committed while
 * one flush was under way share the next one.
 *
 * Why this is the same guarantee: in WAL mode a transaction is durable once its frames,
 * including the commit frame, are on disk in the WAL file, which is all FULL adds over
 * NORMAL at commit. The flush covers every byte written to the file before it started; a
 * checkpoint syncs the WAL and the database file itself before the WAL is reused.
 */

export interface WalSync {
  /** Resolves once everything committed before the call is on disk. */
  (): Promise<void>;
  /** Flushes completed so far (for tests and figures). */
  readonly count: number;
}

/** `flush` is fdatasync of the WAL file by default; tests pass their own to hold it. */
export function walSyncer(walFile: string, flush: () => Promise<void> = () => datasync(walFile)): WalSync {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let count = 0;
  const start = (): Promise<void> => {
    const flushing: Promise<void> = flush().then(() => {
      count++;
    });
    running = flushing;
    const clear = () => {
      if (running === flushing) running = null;
    };
    flushing.then(clear, clear);
    return flushing;
  };
  const sync = (() => {
    if (!running) return start();
    // The flush under way may have started before this caller's commit: wait for the next one,
    // which every caller arriving meanwhile shares.
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return start();
      });
    return queued;
  }) as WalSync;
  Object.defineProperty(sync, 'count', { get: () => count });
  return sync;
}

async function datasync(file: string): Promise<void> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    // No WAL file: the last connection closed and SQLite moved everything into the database
    // file, syncing it; nothing is left to flush.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Inside `flushDeferred`, a write returns once committed and leaves the flush to its caller
 * (the journal, which answers some writers at commit and others once on disk).
 */
const deferred = new AsyncLocalStorage<{ changed: boolean }>();

/** Runs `work`; says whether it changed rows that are not yet flushed. */
export async function flushDeferred(work: () => Promise<void>): Promise<boolean> {
  const scope = { changed: false };
  await deferred.run(scope, work);
  return scope.changed;
}

/**
 * Kysely's SQLite dialect, answering a query or transaction that changed rows only after the
 * WAL is flushed. The connection is released first, so the next writer commits meanwhile.
 */
export class SyncedSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #wrote: () => boolean;
  readonly #sync: WalSync;

  constructor(config: SqliteDialectConfig, sqlite: BetterSqlite3.Database, sync: WalSync) {
    super(config);
    this.#config = config;
    this.#sync = sync;
    // total_changes() counts every row this connection inserted, updated or deleted.
    const changes = sqlite.prepare('select total_changes()').pluck();
    let seen = Number(changes.get());
    this.#wrote = () => {
      const now = Number(changes.get());
      if (now === seen) return false;
      seen = now;
      return true;
    };
  }

  override createDriver(): SqliteDriver {
    const wrote = this.#wrote;
    const sync = this.#sync;
    return new (class extends SqliteDriver {
      override async releaseConnection(): Promise<void> {
        const changed = wrote();
        await super.releaseConnection();
        if (!changed) return;
        const scope = deferred.getStore();
        if (scope) scope.changed = true;
        else await sync();
      }
    })(this.#config);
  }
}
