import { sql, type SelectQueryBuilder } from 'kysely';
import { LOG_COUNT_MAX } from '@ksp/contracts';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

/**
 * How a log table is read newest first (the server's audit records, the clients' records): the
 * time it is ordered by and the unique column that breaks ties, indexed together after the
 * filters' columns.
 */
export interface NewestFirst<TB extends keyof Database> {
  time: keyof Database[TB] & string;
  key: keyof Database[TB] & string;
}

type Order = { time: string; key: string };

/** A place in a log's newest-first order: a record's time and key. */
export interface Position<K extends string | number = string | number> {
  at: string;
  key: K;
}

/**
 * The records after `p`. A row-value comparison, which both engines serve as one range of the
 * `(…, time, key)` indexes; the same condition spelt with OR is a filter that PostgreSQL applies
 * while walking the index from the newest record, every time.
 */
export function after<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  log: Order,
  p: Position,
): SelectQueryBuilder<DB, TB, O> {
  return q.where(sql<boolean>`(${sql.ref(log.time)}, ${sql.ref(log.key)}) < (${p.at}, ${p.key})`);
}

/**
 * The records newest first: by time, then by key, both descending (ties in time keep one order
 * from page to page, the one `after` continues).
 */
export function newestFirst<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  log: Order,
): SelectQueryBuilder<DB, TB, O> {
  return q.orderBy(sql.ref(log.time), 'desc').orderBy(sql.ref(log.key), 'desc');
}

/** How many records `matching` selects, counting no further than `limit`. */
export async function countUpTo<TB extends keyof Database>(
  db: Executor,
  log: Order,
  matching: SelectQueryBuilder<Database, TB, object>,
  limit: number,
): Promise<number> {
  const total = await db
    .selectFrom(matching.select(sql.ref(log.key).as('key')).limit(Math.max(0, limit)).as('matched'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(total.n);
}

/**
 * One page of the records `matching` selects, newest first, at `offset` or right after `from`,
 * as `rows` reads them (`selectFrom(table).selectAll()`). The page's keys come first, from the
 * index alone where the filters allow (a deep page skips index entries, not rows), then its rows
 * by key; the total is counted up to the cap plus one, so that a million matching records cost no
 * more than the cap.
 */
export async function pageNewestFirst<TB extends keyof Database, RB extends keyof Database, R>(
  db: Executor,
  log: Order,
  matching: SelectQueryBuilder<Database, TB, object>,
  rows: SelectQueryBuilder<Database, RB, R>,
  window: { offset: number; limit: number; from: Position | null },
): Promise<{ rows: R[]; total: number; exact: boolean }> {
  const keys = newestFirst(
    window.from ? after(matching, log, window.from) : matching.offset(window.offset),
    log,
  )
    .select(sql.ref(log.key).as('key'))
    .limit(window.limit);
  const [page, counted] = await Promise.all([
    newestFirst(rows, log).where(sql.ref(log.key), 'in', keys).execute(),
    countUpTo(db, log, matching, LOG_COUNT_MAX + 1),
  ]);
  return { rows: page, total: Math.min(counted, LOG_COUNT_MAX), exact: counted <= LOG_COUNT_MAX };
}

/**
 * Up to `max` records, `chunk` at a time by keyset (`read` takes the position after which to
 * start): memory stays at one chunk whatever the total. Yields each chunk whole, so that a writer
 * can hand the stream one piece per chunk rather than one per record.
 */
export async function* chunksNewestFirst<R>(
  max: number,
  chunk: number,
  read: (from: Position | null, limit: number) => Promise<R[]>,
  positionOf: (row: R) => Position,
): AsyncGenerator<R[]> {
  let from: Position | null = null;
  let sent = 0;
  while (sent < max) {
    const rows = await read(from, Math.min(chunk, max - sent));
    if (rows.length > 0) yield rows;
    sent += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < chunk) return;
    from = positionOf(last);
  }
}
