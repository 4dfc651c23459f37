import { LOG_COUNT_MAX } from '@ksp/contracts';
import type { Position } from './db/newest-first.js';
import { invalid } from './errors.js';

/** A log's list query: a page by number, or the page right after a cursor (`after`). */
interface LogPageQuery {
  page: number;
  page_size: number;
  after?: string | undefined;
}

/** A position as handed out: base64url of the record's time and key. */
const cursorOf = (p: Position) => Buffer.from(`${p.at}|${String(p.key)}`).toString('base64url');

/** A cursor read back; anything that is not one this server handed out is refused by name. */
function readCursor<K extends string | number>(cursor: string, keyOf: (text: string) => K | undefined) {
  const [at = '', text = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const key = keyOf(text);
  if (rest.length > 0 || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(at) || key === undefined)
    throw invalid('log.badCursor');
  return { at, key };
}

/**
 * One page of a log newest first, as its list call answers it. Pages by number stop where the
 * count does: beyond, each page would cost the reading of every index entry above it. Pages by
 * position (`after`) go as deep as the records do.
 */
export async function logPage<Row, View, K extends string | number>(
  query: LogPageQuery,
  log: {
    /** A cursor's key, or undefined when the text is not one. */
    keyOf: (text: string) => K | undefined;
    read: (
      offset: number,
      limit: number,
      from: Position<K> | null,
    ) => Promise<{ rows: Row[]; total: number; exact: boolean }>;
    positionOf: (row: Row) => Position;
    views: (rows: Row[]) => View[] | Promise<View[]>;
  },
) {
  if (!query.after && (query.page - 1) * query.page_size >= LOG_COUNT_MAX)
    throw invalid('log.pageTooDeep', { max: LOG_COUNT_MAX.toLocaleString('en') });
  const { rows, total, exact } = await log.read(
    (query.page - 1) * query.page_size,
    query.page_size,
    query.after ? readCursor(query.after, log.keyOf) : null,
  );
  const last = rows.at(-1);
  return {
    data: await log.views(rows),
    total,
    total_exact: exact,
    next_cursor: last && rows.length === query.page_size ? cursorOf(log.positionOf(last)) : null,
  };
}
