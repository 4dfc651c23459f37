import { Readable } from 'node:stream';
import { copyLinesReader } from './db/copy-out.js';
import type { CopyOut } from './db/database.js';
import { StreamedFile } from './http/route.js';

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A cell that a
 * spreadsheet would run as a formula (= + - @, tab, CR) gets a leading apostrophe.
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A file name's time stamp: `20250101-120000Z`. */
export function fileStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
}

/**
 * A list's records as a streamed CSV or JSON file: `chunks` are read one after the other (a
 * keyset reader), and each chunk goes to the stream as one string, so the stream and the socket
 * see a few hundred pieces per 100,000 records rather than one per record.
 */
export function recordsFile<Row, View extends object>(o: {
  /** The name's start, e.g. `ksp-log`; the time stamp and the extension follow. */
  name: string;
  at: Date;
  format: 'csv' | 'json';
  columns: readonly (keyof View & string)[];
  chunks: AsyncIterable<readonly Row[]>;
  view: (row: Row) => View;
}): StreamedFile {
  const { columns, chunks, view } = o;
  async function* csv() {
    yield `${columns.join(',')}\r\n`;
    for await (const rows of chunks) {
      let text = '';
      for (const row of rows) {
        const record = view(row);
        text += `${columns.map((c) => csvCell(record[c])).join(',')}\r\n`;
      }
      yield text;
    }
  }
  async function* json() {
    yield '[';
    let first = true;
    for await (const rows of chunks) {
      let text = '';
      for (const row of rows) {
        text += `${first ? '\n' : ',\n'}${JSON.stringify(view(row))}`;
        first = false;
      }
      yield text;
    }
    yield '\n]\n';
  }
  return new StreamedFile(
    `${o.name}-${fileStamp(o.at)}.${o.format}`,
    o.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
    Readable.from(o.format === 'csv' ? csv() : json()),
  );
}

/**
 * The same file as `recordsFile`, byte for byte, from lines PostgreSQL writes itself
 * (`copyOut` of a query whose one column is each record's CSV line or JSON object, see
 * db/copy-out.ts). The connection is taken when the download starts reading, and given back
 * when it ends or breaks off.
 */
export function copiedRecordsFile(o: {
  name: string;
  at: Date;
  format: 'csv' | 'json';
  columns: readonly string[];
  copyOut: CopyOut;
  /** The query, parameters inlined. */
  select: string;
}): StreamedFile {
  const { format } = o;
  async function* body() {
    yield format === 'csv' ? `${o.columns.join(',')}\r\n` : '[';
    const read = copyLinesReader(format);
    const lines = await o.copyOut(o.select);
    try {
      for await (const chunk of lines) {
        const bytes = read(chunk);
        if (bytes.length > 0) yield bytes;
      }
    } finally {
      lines.destroy();
    }
    if (format === 'json') yield '\n]\n';
  }
  return new StreamedFile(
    `${o.name}-${fileStamp(o.at)}.${format}`,
    format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
    Readable.from(body()),
  );
}

/** What an export's audit record says of it: the format and every filter given. */
export function exportDetails(
  format: string,
  filters: Record<string, string | number | boolean | undefined>,
): Record<string, string> {
  const details: Record<string, string> = { format };
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) details[key] = String(value);
  return details;
}

/**
 * A list's export: written by PostgreSQL itself when the database can copy out
 * (`copiedRecordsFile` of `select()`), else read in chunks and written here (`recordsFile` of
 * what `read()` gives); the same bytes either way.
 */
export async function exportFile<Row, View extends object>(o: {
  name: string;
  at: Date;
  format: 'csv' | 'json';
  columns: readonly (keyof View & string)[];
  copyOut: CopyOut | null;
  /** The query, parameters inlined, whose one column is each record's line. */
  select: () => string;
  read: () => Promise<{ chunks: AsyncIterable<readonly Row[]>; view: (row: Row) => View }>;
}): Promise<StreamedFile> {
  const file = { name: o.name, at: o.at, format: o.format, columns: o.columns };
  if (o.copyOut) return copiedRecordsFile({ ...file, copyOut: o.copyOut, select: o.select() });
  return recordsFile({ ...file, ...(await o.read()) });
}
