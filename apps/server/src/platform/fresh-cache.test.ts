import { afterEach, describe, expect, it } from 'vitest';
import { createFreshCache, type FreshCache } from './fresh-cache.js';

/** A read the test answers when it wants, so that callers can pile up behind it. */
interface Read {
  key: string;
  previous: string | undefined;
  answer: (value: string | undefined) => void;
}

describe('the fresh cache (sessions and keys read by every request)', () => {
  let now = 0;
  let reads: Read[] = [];
  let disposed: [string, string | undefined][] = [];
  let cache: FreshCache<string> | undefined;
  afterEach(() => cache?.close());
  const make = () => {
    now = 1_000_000;
    reads = [];
    disposed = [];
    cache = createFreshCache<string>({
      ttlMs: 1000,
      size: 100,
      now: () => now,
      read: (key, previous) => new Promise((resolve) => reads.push({ key, previous, answer: resolve })),
      dispose: (value, next) => disposed.push([value, next]),
    });
    return cache;
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('sends one read for the callers that miss together, and answers them all with it', async () => {
    const c = make();
    const asked = Array.from({ length: 64 }, () => c.get('k'));
    expect(reads).toHaveLength(1);
    reads[0]!.answer('v1');
    expect(await Promise.all(asked)).toEqual(Array(64).fill('v1'));
    // Cached now: no read.
    expect(await c.get('k')).toBe('v1');
    expect(reads).toHaveLength(1);
  });

  it('reads an entry in use again before it expires, without making its callers wait', async () => {
    const c = make();
    const first = c.get('k');
    reads[0]!.answer('v1');
    await first;
    now += 499;
    expect(await c.get('k')).toBe('v1');
    expect(reads).toHaveLength(1); // first half of its life: no refresh
    now += 1;
    // Second half: answered from the cache at once, one refresh started for all callers.
    expect(await Promise.all([c.get('k'), c.get('k'), c.get('k')])).toEqual(['v1', 'v1', 'v1']);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.previous).toBe('v1');
    reads[1]!.answer('v2');
    await settle();
    expect(disposed).toEqual([['v1', 'v2']]);
    // The new entry counts from when its read started: fresh until then + 1000 ms.
    now += 499;
    expect(await c.get('k')).toBe('v2');
    expect(reads).toHaveLength(2);
  });

  it('never answers an entry past its bound: a caller after it waits for the read', async () => {
    const c = make();
    const first = c.get('k');
    reads[0]!.answer('v1');
    await first;
    now += 1000;
    const late = c.get('k');
    expect(reads).toHaveLength(2);
    expect(reads[1]!.previous).toBeUndefined();
    reads[1]!.answer('v2');
    expect(await late).toBe('v2');
    expect(disposed).toEqual([['v1', undefined]]);
  });

  it('keeps nothing a read answered that started before forget, and reads again after it', async () => {
    const c = make();
    const before = c.get('k');
    c.forget(); // a change on this node while the read was under way
    const after = c.get('k');
    expect(reads).toHaveLength(2);
    reads[0]!.answer('old');
    reads[1]!.answer('new');
    expect(await before).toBe('old');
    expect(await after).toBe('new');
    expect(c.peek('k')).toBe('new');
    expect(disposed).toEqual([['old', undefined]]);
  });

  it('caches no answer when there is nothing, and lets a failed refresh expire the entry', async () => {
    const c = make();
    const missing = c.get('gone');
    reads[0]!.answer(undefined);
    expect(await missing).toBeUndefined();
    expect(c.peek('gone')).toBeUndefined();

    c.close();
    let sent = 0;
    cache = createFreshCache<string>({
      ttlMs: 1000,
      size: 100,
      now: () => now,
      read: () => (++sent === 1 ? Promise.resolve('v1') : Promise.reject(new Error('database down'))),
    });
    expect(await cache.get('k')).toBe('v1');
    now += 600;
    expect(await cache.get('k')).toBe('v1'); // the refresh fails in the background
    await settle();
    expect(sent).toBe(2);
    now += 400;
    await expect(cache.get('k')).rejects.toThrow('database down');
  });
});
