import { opClasses, type OpClass } from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { addOpCounts, dropOpCountsBefore, opCountsSince } from './dashboard.store.js';

const MINUTE_MS = 60_000;
/** Buckets older than this are dropped by the daily prune (the 7-day chart and a day to spare). */
export const OP_COUNTER_KEEP_DAYS = 8;

/** One counted bucket: minute (since the epoch), domain, class, count. */
export interface OpBucket {
  minute: number;
  domainId: string;
  opClass: OpClass;
  count: number;
}

const SEP = '\u0000';
const keyOf = (minute: number, domainId: string, opClass: OpClass) =>
  `${minute}${SEP}${domainId}${SEP}${opClass}`;
function parseKey(key: string, count: number): OpBucket {
  const [minute, domainId, opClass] = key.split(SEP) as [string, string, OpClass];
  return { minute: Number(minute), domainId, opClass, count };
}

/**
 * Counts cryptographic operations on the hot path: `count` only adds 1 to an entry of an
 * in-memory map (minute × domain × class); `flush` (a per-node job every 10 s, and shutdown)
 * adds the entries to `op_counter` rows of this node. Reads add the entries not yet written,
 * so an operation shows at once on the node that served it.
 */
export function createOpCounter(deps: { db: Db; clock: Clock; node: string }) {
  const { db, clock, node } = deps;
  let pending = new Map<string, number>();
  /** Taken by a flush and not yet committed: still counted by reads. */
  let inflight = new Map<string, number>();
  let flushing: Promise<number> | null = null;

  async function write(batch: Map<string, number>): Promise<number> {
    const rows = [...batch].map(([key, count]) => {
      const b = parseKey(key, count);
      return { minute: b.minute, domain_id: b.domainId, class: b.opClass, node, count: b.count };
    });
    // A few hundred rows per statement keep within both engines' parameter limits; one
    // transaction, so that a failed flush, whose buckets go back to be written again, wrote none.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await addOpCounts(trx, rows.slice(i, i + 500));
    });
    return rows.length;
  }

  /**
   * Adds the counted buckets to the table (one flush at a time); the rows written. On a
   * failure the buckets go back to be written by the next flush.
   */
  function flush(): Promise<number> {
    if (flushing) return flushing.then(flush, flush);
    if (pending.size === 0) return Promise.resolve(0);
    inflight = pending;
    pending = new Map();
    flushing = write(inflight)
      .catch((err: unknown) => {
        for (const [key, count] of inflight) pending.set(key, (pending.get(key) ?? 0) + count);
        throw err;
      })
      .finally(() => {
        inflight = new Map();
        flushing = null;
      });
    return flushing;
  }

  /** The buckets of this node not yet in the table, from `fromMinute` on (all domains when null). */
  function unflushed(domainId: string | null, fromMinute: number): OpBucket[] {
    const out: OpBucket[] = [];
    for (const map of [inflight, pending])
      for (const [key, count] of map) {
        const b = parseKey(key, count);
        if (b.minute >= fromMinute && (domainId === null || b.domainId === domainId)) out.push(b);
      }
    return out;
  }

  return {
    flush,
    unflushed,

    /** One operation of `opClass` in `domainId`, now. The hot path: an addition in memory. */
    count(domainId: string, opClass: OpClass): void {
      const key = keyOf(Math.floor(clock().getTime() / MINUTE_MS), domainId, opClass);
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },

    /**
     * Counts per class and bucket of `bucketMinutes`, from `fromMinute` on, of one domain or
     * all (null): the table's rows of every node plus this node's unflushed ones.
     */
    async read(domainId: string | null, fromMinute: number, bucketMinutes: number) {
      const rows = await opCountsSince(db, domainId, fromMinute, bucketMinutes);
      const counts = new Map<number, Record<OpClass, number>>();
      const add = (bucket: number, opClass: string, n: number) => {
        if (!(opClasses as readonly string[]).includes(opClass)) return;
        let entry = counts.get(bucket);
        if (!entry) {
          entry = Object.fromEntries(opClasses.map((c) => [c, 0])) as Record<OpClass, number>;
          counts.set(bucket, entry);
        }
        entry[opClass as OpClass] += n;
      };
      for (const r of rows) add(Number(r.bucket), r.class, Number(r.n));
      for (const b of unflushed(domainId, fromMinute))
        add(Math.floor(b.minute / bucketMinutes) * bucketMinutes, b.opClass, b.count);
      return counts;
    },

    /** Drops the buckets older than `OP_COUNTER_KEEP_DAYS`; the rows dropped. */
    async prune(): Promise<number> {
      const before = Math.floor(clock().getTime() / MINUTE_MS) - OP_COUNTER_KEEP_DAYS * 24 * 60;
      return dropOpCountsBefore(db, before);
    },
  };
}

export type OpCounter = ReturnType<typeof createOpCounter>;
