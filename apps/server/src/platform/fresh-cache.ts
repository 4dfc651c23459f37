/**
 * A read-through cache for what every request reads (its session, the key it uses) and a node
 * may keep for a short while: an entry is answered for at most `ttlMs` after the read that made
 * it started, so a change made on another node applies here within that time.
 *
 * Two things keep a busy node from waiting on the database when entries age:
 * - **One read per entry at a time.** Callers that miss while a read of the same entry is under
 *   way wait for that read instead of sending their own. (Without this every request in flight
 *   when an entry expired read it again: at 64 clients, 64 reads of the session and 64 of the
 *   key each second, which took the database pool from the requests' own writes.)
 * - **Refreshed before it expires.** An entry used in the second half of its life is read again
 *   in the background while callers keep getting it; the new entry takes over when its read
 *   returns. A hot entry is then always fresh and nobody waits; an entry nobody uses expires.
 *
 * `forget` drops every entry and every read under way (a read that started before a change
 * made on this node never becomes an entry).
 */
export interface FreshCacheOptions<V> {
  ttlMs: number;
  /** Entries kept at most; the oldest goes first. */
  size: number;
  /** Milliseconds (the server's clock: tests move it). */
  now: () => number;
  /** Reads the value; undefined when there is none (nothing is cached then). `previous`: the entry being refreshed. */
  read: (key: string, previous: V | undefined) => Promise<V | undefined>;
  /** An entry leaves the cache: expired, forgotten, pushed out, or `replacedBy` a newer read. */
  dispose?: (value: V, replacedBy: V | undefined) => void;
}

interface Slot<V> {
  value: V;
  readAt: number;
}

export function createFreshCache<V>(options: FreshCacheOptions<V>) {
  const { ttlMs, size, now, read, dispose } = options;
  const entries = new Map<string, Slot<V>>();
  const loading = new Map<string, Promise<V | undefined>>();
  let generation = 0;
  let refreshes = 0;
  let reads = 0;

  const remove = (key: string, replacedBy?: V) => {
    const gone = entries.get(key);
    entries.delete(key);
    if (gone) dispose?.(gone.value, replacedBy);
  };

  function install(key: string, value: V | undefined, readAt: number): void {
    if (value === undefined) {
      remove(key);
      return;
    }
    const old = entries.get(key);
    if (old && old.readAt > readAt) {
      // A read that started later already answered; this one is older.
      dispose?.(value, undefined);
      return;
    }
    if (!old && entries.size >= size) remove(entries.keys().next().value!);
    entries.delete(key);
    entries.set(key, { value, readAt });
    if (old) dispose?.(old.value, value);
  }

  /** The read of `key` under way, or a new one. */
  function load(key: string, previous: V | undefined): Promise<V | undefined> {
    const pending = loading.get(key);
    if (pending) return pending;
    const seen = generation;
    const startedAt = now();
    reads++;
    const promise = read(key, previous).then((value) => {
      // A change made on this node while the read was under way must not be hidden by it.
      if (seen === generation) install(key, value, startedAt);
      else if (value !== undefined) dispose?.(value, undefined);
      return value;
    });
    loading.set(key, promise);
    const done = () => {
      if (loading.get(key) === promise) loading.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  // Unused entries do not wait for a caller to notice they expired.
  const sweeper = setInterval(() => {
    const t = now();
    for (const [key, slot] of entries) if (t - slot.readAt >= ttlMs || t < slot.readAt) remove(key);
  }, ttlMs);
  sweeper.unref();

  return {
    /** The value of `key`: cached while fresh, else read (once, whoever else asks meanwhile). */
    get(key: string): Promise<V | undefined> {
      const t = now();
      const hit = entries.get(key);
      if (hit) {
        const age = t - hit.readAt;
        if (age >= 0 && age < ttlMs) {
          if (age >= ttlMs / 2 && !loading.has(key)) {
            refreshes++;
            // A failed refresh leaves the entry to expire; the next caller reads it again.
            load(key, hit.value).catch(() => undefined);
          }
          return Promise.resolve(hit.value);
        }
        remove(key);
      }
      return load(key, undefined);
    },
    /** The entry as cached now, fresh or not yet swept (no read). */
    peek(key: string): V | undefined {
      return entries.get(key)?.value;
    },
    /** Drops every entry and forgets every read under way. */
    forget(): void {
      generation++;
      loading.clear();
      for (const key of [...entries.keys()]) remove(key);
    },
    close(): void {
      clearInterval(sweeper);
      generation++;
      loading.clear();
      for (const key of [...entries.keys()]) remove(key);
    },
    /** Reads sent and background refreshes started so far (tests). */
    stats: () => ({ reads, refreshes }),
  };
}

export type FreshCache<V> = ReturnType<typeof createFreshCache<V>>;
