import { open, type FileHandle } from 'node:fs/promises';
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
 * pool, has returned. The guarantee is FULL's (an answered write survives a power loss, and
 * no query sees it before: the connection is held until the flush returns); the event loop
 * serves other requests while the disk flushes. Writers that leave the flush to their caller
 * (`deferFlush`: the journal's operation records) and commit while one flush is under way
 * share the next one.
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
  /** Closes the WAL file handle (with the database). */
  close(): Promise<void>;
}

/** `flush` is fdatasync of the WAL file by default; tests pass their own to hold it. */
export function walSyncer(walFile: string, custom?: () => Promise<void>): WalSync {
  const flusher = custom ? { flush: custom, close: () => Promise.resolve() } : walFlusher(walFile);
  const flush = flusher.flush;
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
  sync.close = async () => {
    await running?.catch(() => undefined);
    await flusher.close();
  };
  return sync;
}

/**
 * fdatasync of the WAL file through one handle kept open: the file lives as long as the
 * server's connection (SQLite removes it only when the last connection closes).
 */
function walFlusher(file: string) {
  let handle: Promise<FileHandle> | null = null;
  return {
    async flush(): Promise<void> {
      handle ??= open(file, 'r');
      try {
        await (await handle).datasync();
      } catch (err) {
        const failed = handle;
        handle = null;
        await failed.then((h) => h.close()).catch(() => undefined);
        throw err;
      }
    },
    async close(): Promise<void> {
      const open = handle;
      handle = null;
      await open?.then((h) => h.close()).catch(() => undefined);
    },
  };
}

/** What a deferred transaction tells its caller once it is released. */
export interface DeferredFlush {
  /** It changed rows that are not flushed yet: the caller flushes (or answers without). */
  changed: boolean;
}

/**
 * Kysely's SQLite dialect, answering a query or transaction that changed rows only after the
 * WAL is flushed, and releasing the connection only then.
 */
export class SyncedSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #wrote: () => boolean;
  readonly #sync: WalSync;
  #deferred: DeferredFlush | null = null;

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

  /**
   * Called inside a transaction (while it holds the one connection): its release returns
   * without flushing, and the returned object says whether the caller has a flush to start.
   * For writes that may be seen before they are on disk (operation records answered at
   * commit). The connection is held, so the next release is this transaction's own.
   */
  deferFlush(): DeferredFlush {
    const deferred = { changed: false };
    this.#deferred = deferred;
    return deferred;
  }

  override createDriver(): SqliteDriver {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the driver asks the dialect.
    const dialect = this;
    return new (class extends SqliteDriver {
      override async releaseConnection(): Promise<void> {
        const changed = dialect.#wrote();
        const deferred = dialect.#deferred;
        dialect.#deferred = null;
        if (changed && deferred) deferred.changed = true;
        // The connection stays held until the flush returns: no query reads a write before it
        // is on disk, as with FULL (a reader must not act on a key a power loss would take back).
        // The event loop is free meanwhile.
        try {
          if (changed && !deferred) await dialect.#sync();
        } finally {
          await super.releaseConnection();
        }
      }
    })(this.#config);
  }
}
