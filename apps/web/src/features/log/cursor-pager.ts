/**
 * Pages by position where it can: the page after one already read starts at that page's
 * `next_cursor`, so that page 25,000 costs the server what page 1 costs when the user steps
 * through. A jump to a page not reached step by step goes by number.
 */
export function cursorPager<
  Q extends { page: number; page_size: number },
  R extends { next_cursor: string | null },
>(fetchPage: (query: Q & { after?: string }) => Promise<R>, remember = 500) {
  const cursors = new Map<string, string>();
  const keyOf = (query: Q, page: number) => JSON.stringify({ ...query, page });
  return async (query: Q): Promise<R> => {
    const after = query.page > 1 ? cursors.get(keyOf(query, query.page - 1)) : undefined;
    const answer = await fetchPage(after ? { ...query, after } : query);
    const key = keyOf(query, query.page);
    cursors.delete(key);
    if (answer.next_cursor) {
      // The oldest positions go first once there are many: a jump there goes by number again.
      if (cursors.size >= remember) cursors.delete(cursors.keys().next().value!);
      cursors.set(key, answer.next_cursor);
    }
    return answer;
  };
}
