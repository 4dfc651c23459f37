/**
 * Exports that PostgreSQL writes itself: `COPY (SELECT …) TO STDOUT`, streamed as buffers.
 *
 * Reading a million rows through `pg` builds a million row objects, and the server's heap grows
 * by some 100 MB of garbage before V8 collects it (docs/performance.md, logs). With `COPY` the
 * server receives bytes only. The query computes each record's whole line (a CSV line or a JSON
 * object) as one text column, and COPY sends one such line per row.
 *
 * COPY takes no bind parameters, so a query's parameters are written into it as literals with
 * `pg`'s `escapeLiteral` (quotes doubled, backslashes in an E'' string): a value can never end
 * its literal.
 */
import type { CompiledQuery } from 'kysely';
import pg from 'pg';

/** PostgreSQL text of the query, with each `$n` replaced by its parameter as a literal. */
export function inlineParameters(query: Pick<CompiledQuery, 'sql' | 'parameters'>): string {
  return query.sql.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = query.parameters[Number(n) - 1];
    if (typeof value === 'string') return pg.escapeLiteral(value);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    throw new Error(`COPY query parameter $${n} is neither text nor a finite number`);
  });
}

/**
 * The COPY statement that sends each row's one text column unchanged. In CSV format PostgreSQL
 * escapes nothing; it wraps a value in its quote character only when the value holds the
 * delimiter, that quote character, CR or LF. Both are control characters (\x01, \x02) that the
 * reader below takes apart again, so the lines arrive byte for byte.
 */
export const copyLinesSql = (select: string) =>
  `COPY (${select}) TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;

const QUOTE = 0x02;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');
const QUOTE_BYTE = Buffer.from([QUOTE]);

/**
 * Turns the COPY stream of `copyLinesSql` into a file's body, chunk by chunk (a chunk may end
 * anywhere, even inside a quoted value):
 * - `csv`: each line ends with CRLF (RFC 4180), as the lines written by the server itself;
 * - `json`: the lines become the items of one array, `[`, `\n` + item, `,\n` + item …, `\n]\n`
 *   (the caller writes the brackets: `jsonStart`, `jsonEnd`).
 */
export function copyLinesReader(format: 'csv' | 'json') {
  // 0: outside quotes; 1: inside a quoted value; 2: a quote seen inside (closing, or doubled).
  let state: 0 | 1 | 2 = 0;
  let lineStart = true;
  let lines = 0;
  return (chunk: Buffer): Buffer => {
    const out: Buffer[] = [];
    const startLine = () => {
      if (!lineStart) return;
      lineStart = false;
      if (format === 'json') out.push(Buffer.from(lines === 0 ? '\n' : ',\n'));
      lines += 1;
    };
    let nextQuote = chunk.indexOf(QUOTE);
    let i = 0;
    while (i < chunk.length) {
      if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
      if (state === 0) {
        const lf = chunk.indexOf(LF, i);
        const stop = lf === -1 ? nextQuote : nextQuote === -1 ? lf : Math.min(lf, nextQuote);
        const end = stop === -1 ? chunk.length : stop;
        if (end > i) {
          startLine();
          out.push(chunk.subarray(i, end));
        }
        if (stop === -1) break;
        if (chunk[stop] === LF) {
          if (format === 'csv') out.push(CRLF);
          lineStart = true;
        } else {
          startLine();
          state = 1;
        }
        i = stop + 1;
      } else if (state === 1) {
        const end = nextQuote === -1 ? chunk.length : nextQuote;
        if (end > i) out.push(chunk.subarray(i, end));
        if (nextQuote === -1) break;
        state = 2;
        i = nextQuote + 1;
      } else if (chunk[i] === QUOTE) {
        out.push(QUOTE_BYTE);
        state = 1;
        i += 1;
      } else {
        state = 0;
      }
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  };
}

/** SQL text of a value: itself, or '' for NULL. */
const text = (expr: string) => `coalesce((${expr})::text, '')`;

/**
 * SQL of one CSV cell, the same text as `csvCell` in platform/csv.ts: a cell a spreadsheet
 * would run as a formula (= + - @, tab, CR first) gets a leading apostrophe, and a cell holding
 * a comma, quote, CR or LF is quoted with its quotes doubled.
 */
export function csvCellSql(expr: string): string {
  const t = text(expr);
  const guarded = `(CASE WHEN left(${t}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${t} ELSE ${t} END)`;
  const needsQuotes = [`'"'`, `','`, 'chr(10)', 'chr(13)']
    .map((c) => `strpos(${guarded}, ${c}) > 0`)
    .join(' OR ');
  return `(CASE WHEN ${needsQuotes} THEN '"' || replace(${guarded}, '"', '""') || '"' ELSE ${guarded} END)`;
}

/** SQL of one CSV line (without its end) of the given cells. */
export const csvLineSql = (exprs: readonly string[]) => exprs.map(csvCellSql).join(` || ',' || `);

export type JsonMember =
  /** A text or number column, as JSON.stringify writes it (NULL: null). */
  | { name: string; expr: string }
  /** A column that already holds JSON text, written as it is. */
  | { name: string; json: string };

/**
 * SQL of one JSON object with the members in the given order, byte for byte what
 * `JSON.stringify` writes for the same values (`to_json` escapes text as it does).
 */
export function jsonLineSql(members: readonly JsonMember[]): string {
  const parts = members.map((m, i) => {
    const value = 'json' in m ? `(${m.json})` : `coalesce(to_json(${m.expr})::text, 'null')`;
    return `${pg.escapeLiteral(`${i === 0 ? '{' : ','}${JSON.stringify(m.name)}:`)} || ${value}`;
  });
  return `${parts.join(' || ')} || '}'`;
}

/**
 * SQL of a record's export line: the CSV cells `csvColumns` of `view` (each member's SQL by its
 * name, in the view's order), or the JSON object of every member, `details` written as the JSON
 * text it is stored as.
 */
export function viewLineSql<M extends string>(
  format: 'csv' | 'json',
  view: Readonly<Record<M, string>>,
  csvColumns: readonly M[],
): string {
  if (format === 'csv') return csvLineSql(csvColumns.map((c) => view[c]));
  return jsonLineSql(
    Object.entries<string>(view).map(([name, expr]) =>
      name === 'details' ? { name, json: expr } : { name, expr },
    ),
  );
}
