import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, throwawayDatabase } from '../../test/harness.js';
import type { DatabaseHandle } from './database.js';
import { pagedRows } from './paged.js';

describe.each(await engines())('pagedRows on %s', (engine) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await throwawayDatabase(engine);
    const at = new Date().toISOString();
    await handle.db
      .insertInto('domain')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          id: `00000000-0000-7000-8000-00000000000${i}`,
          name: `paged-${i % 2 ? 'odd' : 'even'}-${i}`,
          description: '',
          parent_id: null,
          kek_wrapped: 'not-a-key',
          created_at: at,
        })),
      )
      .execute();
  });
  afterAll(() => handle?.close());

  const filtered = () => handle.db.selectFrom('domain').where('name', 'like', 'paged-%');

  it('gives one page of the ordered rows and the filter’s total, by page or by window', async () => {
    const second = await pagedRows(filtered(), { page: 2, page_size: 3 }, (q) =>
      q.select(['name']).orderBy('name').orderBy('id'),
    );
    expect(second).toEqual({
      total: 7,
      rows: [{ name: 'paged-even-6' }, { name: 'paged-odd-1' }, { name: 'paged-odd-3' }],
    });
    const odd = await pagedRows(
      filtered().where('name', 'like', 'paged-odd%'),
      { offset: 2, limit: 10 },
      (q) => q.select(['name']).orderBy('name'),
    );
    expect(odd).toEqual({ total: 3, rows: [{ name: 'paged-odd-5' }] });
  });

  it('answers an empty page past the end with the total still counted', async () => {
    const past = await pagedRows(filtered(), { page: 9, page_size: 3 }, (q) => q.selectAll().orderBy('id'));
    expect(past).toEqual({ total: 7, rows: [] });
  });
});
