import { describe, expect, it } from 'vitest';
import { copyLinesReader, inlineParameters } from './copy-out.js';

/** What `COPY … (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02')` sends for one-column rows. */
const copied = (lines: string[]) =>
  lines
    .map((l) =>
      [...'\x01\x02\r\n'].some((c) => l.includes(c))
        ? `\x02${l.split('\x02').join('\x02\x02')}\x02\n`
        : `${l}\n`,
    )
    .join('');

const LINES = ['a,"b"', 'plain', 'inner\r\nbreak', '\x02lead', 'tail\x02', '\x01\x02\x02', '中文 😀', '"x"'];

function readAll(format: 'csv' | 'json', bytes: Buffer, cuts: number[]): string {
  const read = copyLinesReader(format);
  const parts: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    parts.push(read(bytes.subarray(from, cut)));
    from = cut;
  }
  return Buffer.concat(parts).toString('utf8');
}

describe('lines written by COPY', () => {
  it('arrive byte for byte, CRLF-ended (CSV) or as array items (JSON), wherever the chunks are cut', () => {
    const bytes = Buffer.from(copied(LINES));
    const csv = LINES.map((l) => `${l}\r\n`).join('');
    const json = LINES.map((l, i) => `${i ? ',\n' : '\n'}${l}`).join('');
    expect(readAll('csv', bytes, [])).toBe(csv);
    expect(readAll('json', bytes, [])).toBe(json);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(readAll('csv', bytes, [cut])).toBe(csv);
      expect(readAll('json', bytes, [cut, Math.min(cut + 3, bytes.length)])).toBe(json);
    }
    // One byte at a time.
    expect(
      readAll(
        'csv',
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toBe(csv);
    expect(readAll('json', Buffer.alloc(0), [])).toBe('');
  });

  it('are selected by a query whose parameters are literals that no value can end', () => {
    const text = inlineParameters({
      sql: 'select line from t where a = $1 and b like $2 and c = $10 limit $3',
      parameters: ["x' or '1'='1", 'back\\slash%', 100, ...Array<string>(6).fill('p'), '$1'],
    });
    expect(text).toBe(
      "select line from t where a = 'x'' or ''1''=''1' and b like  E'back\\\\slash%' and c = '$1' limit 100",
    );
    expect(() => inlineParameters({ sql: 'select $1', parameters: [new Date()] })).toThrow(/neither text/);
  });
});
