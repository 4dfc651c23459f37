import { describe, expect, it } from 'vitest';
import { turnLoader } from './turn-loader.js';

describe('turnLoader', () => {
  it('answers the lookups of separate callbacks in one turn with one query, each its own answer', async () => {
    const queries: (readonly number[])[] = [];
    const loader = turnLoader<number, string>((asked) => {
      queries.push(asked);
      return Promise.resolve(asked.map((n) => `answer ${n}`));
    });
    // Requests read in one poll phase each run in a callback of their own, like these timers.
    const answers = await Promise.all(
      [1, 2, 3, 2].map(
        (n) =>
          new Promise<string>((resolve, reject) => {
            setTimeout(() => void loader.load(n).then(resolve, reject), 0);
          }),
      ),
    );
    expect(answers).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 2']);
    expect(queries).toEqual([[1, 2, 3, 2]]);

    // Nothing is kept: a later lookup of the same key queries again.
    expect(await loader.load(1)).toBe('answer 1');
    expect(queries).toHaveLength(2);
  });

  it('gives each lookup its own failure when the query fails', async () => {
    const loader = turnLoader<number, number>(() => Promise.reject(new Error('database gone')));
    const settled = await Promise.allSettled([loader.load(1), loader.load(2)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });
});
