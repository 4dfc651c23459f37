import DataLoader from 'dataloader';

/** Lookups of one turn answered by one query: well under both engines' limits on bound parameters. */
const MAX_PER_QUERY = 500;

/**
 * Lookups made during one turn of the event loop, answered by one query. Requests read from
 * the sockets in one poll phase each run in their own callback, so DataLoader's default
 * (the end of the current tick) would batch nothing across requests; this waits for the check
 * phase that follows the poll. Every lookup still starts its query after it was asked for, so
 * it reads what was committed before, as a query of its own would. Nothing is cached.
 */
export function turnLoader<K, V>(load: (keys: readonly K[]) => Promise<readonly V[]>): DataLoader<K, V> {
  return new DataLoader<K, V>(load, {
    cache: false,
    maxBatchSize: MAX_PER_QUERY,
    batchScheduleFn: (run) => setImmediate(run),
  });
}
