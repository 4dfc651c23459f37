import type { Journal } from '../../platform/db/journal.js';
import { touchClients, type AgentFacts } from './client.store.js';
import { iso } from './client.view.js';

/**
 * The shortest time (ms) between two transactions recording accepted agent calls (`touch`): at
 * a thousand agents a node writes ten batches a second instead of one per call, and a call
 * waits at most this long for its batch.
 */
export const TOUCH_BATCH_MS = 100;

/** Rows of one update statement (7 parameters each: far below either engine's limit). */
const TOUCH_STATEMENT_ROWS = 500;

interface Touch {
  id: string;
  timestamp: number;
  at: number;
  facts: AgentFacts;
  resolve(accepted: boolean): void;
  reject(err: unknown): void;
}

/**
 * Records an accepted agent call (last request, last seen, facts) when its timestamp is still
 * newer than the client's last: false when a concurrent call with the same or a newer one won
 * (a replay). Calls arriving while a batch commits share the next transaction (group commit):
 * on SQLite every write transaction waits for its disk flush, and a thousand agents
 * heartbeating must not wait for a thousand flushes.
 */
export function createTouch(journal: Pick<Journal, 'commitThenFlush'>) {
  let touches: Touch[] = [];
  let lastBatchAt = -Infinity;
  let touching: Promise<void> | null = null;

  /** Takes one call per client from the queue: a client's second call waits for the next batch. */
  function nextBatch(): Touch[] {
    const batch: Touch[] = [];
    const later: Touch[] = [];
    const ids = new Set<string>();
    for (const t of touches) {
      if (ids.has(t.id)) later.push(t);
      else {
        ids.add(t.id);
        batch.push(t);
      }
    }
    touches = later;
    return batch;
  }

  async function drain() {
    try {
      while (touches.length) {
        // At most one batch every TOUCH_BATCH_MS: under load the calls of that time share
        // one transaction and one flush; a lone call (the last batch long ago) goes at once.
        // (Real time, not the service's clock: tests move that one.)
        const since = performance.now() - lastBatchAt;
        if (since < TOUCH_BATCH_MS) await new Promise((r) => setTimeout(r, TOUCH_BATCH_MS - since));
        lastBatchAt = performance.now();
        // One call per client in a batch: its update is one row of one statement, and a
        // second call of the same client (a replay, or a heartbeat beside a config call)
        // is judged against the first in the next batch.
        const batch = nextBatch();
        const accepted = new Set<string>();
        try {
          await journal.commitThenFlush(async (trx) => {
            for (let i = 0; i < batch.length; i += TOUCH_STATEMENT_ROWS) {
              const rows = batch
                .slice(i, i + TOUCH_STATEMENT_ROWS)
                .map((t) => ({ id: t.id, timestamp: t.timestamp, at: iso(t.at), facts: t.facts }));
              for (const id of await touchClients(trx, rows)) accepted.add(id);
            }
          });
          for (const t of batch) t.resolve(accepted.has(t.id));
        } catch (err) {
          for (const t of batch) t.reject(err);
        }
      }
    } finally {
      touching = null;
    }
  }

  return (id: string, timestamp: number, at: number, facts: AgentFacts): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      touches.push({ id, timestamp, at, facts, resolve, reject });
      touching ??= drain();
    });
}
