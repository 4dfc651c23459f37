import { describe, expect, it, vi } from 'vitest';
import { cursorPager } from './cursor-pager';

type Query = { page: number; page_size: number; result?: string; after?: string };

describe('cursorPager', () => {
  const server = () =>
    vi.fn(async (q: Query) => ({ data: [q.page], next_cursor: `c${q.result ?? ''}${q.page}` }));

  it('starts the next page at the cursor of the page before, with the same filters', async () => {
    const fetchPage = server();
    const pager = cursorPager(fetchPage);
    await pager({ page: 1, page_size: 20 });
    await pager({ page: 2, page_size: 20 });
    expect(fetchPage.mock.calls[1]![0]).toEqual({ page: 2, page_size: 20, after: 'c1' });
    await pager({ page: 3, page_size: 20 });
    expect(fetchPage.mock.calls[2]![0].after).toBe('c2');
  });

  it('goes by number after a jump, a filter change or a page size change', async () => {
    const fetchPage = server();
    const pager = cursorPager(fetchPage);
    await pager({ page: 1, page_size: 20 });
    await pager({ page: 5, page_size: 20 });
    await pager({ page: 2, page_size: 20, result: 'failure' });
    await pager({ page: 2, page_size: 50 });
    expect(fetchPage.mock.calls.slice(1).map(([q]) => q.after)).toEqual([undefined, undefined, undefined]);
  });

  it('forgets the oldest positions beyond its bound', async () => {
    const fetchPage = server();
    const pager = cursorPager(fetchPage, 2);
    await pager({ page: 1, page_size: 20 });
    await pager({ page: 2, page_size: 20 });
    await pager({ page: 3, page_size: 20 });
    await pager({ page: 2, page_size: 20 });
    expect(fetchPage.mock.calls[3]![0].after).toBeUndefined();
  });
});
