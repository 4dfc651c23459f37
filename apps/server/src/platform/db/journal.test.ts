import { afterEach, describe, expect, it } from 'vitest';
import { auditRow } from '../audit.js';
import { migrate, type DatabaseHandle } from './database.js';
import { createJournal } from './journal.js';
import { engines, throwawayDatabase } from '../../test/harness.js';
import { sqliteFiles } from '../../test/sqlite-files.js';

describe('the journal answers each writer at the durability it asked for (SQLite, synchronous=FULL)', () => {
  const sqlite = sqliteFiles();

  const record = (target: string) => ({
    audit: [auditRow({ who: null, action: 'test.write', target, result: 'success', ip: '-' })],
  });
  const settledWithin = async (p: Promise<unknown>, ms = 50) =>
    Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

  it('answers `commit` writers at commit and `disk` writers once the WAL flush returns; a shutdown waits for both', async () => {
    const pending: (() => void)[] = [];
    let hold = false;
    const { handle } = sqlite.open({
      flushWal: () => (hold ? new Promise<void>((resolve) => pending.push(resolve)) : Promise.resolve()),
    });
    await migrate(handle.db);
    const journal = createJournal(handle);
    hold = true;
    const committed = journal.write(record('fast'), 'commit');
    expect(await settledWithin(committed)).toBe(true);
    expect(pending).toHaveLength(1); // its flush started, after the answer
    const onDisk = journal.write(record('safe'));
    expect(await settledWithin(onDisk)).toBe(false);
    const flushed = journal.flush();
    expect(await settledWithin(flushed)).toBe(false);
    hold = false;
    for (const resolve of pending.splice(0)) resolve();
    await onDisk;
    await flushed;
    const rows = await handle.db
      .selectFrom('audit_log')
      .select('target')
      .where('action', '=', 'test.write')
      .execute();
    expect(rows.map((r) => r.target).sort()).toEqual(['fast', 'safe']);
  });

  it('starts the flush of `commit` writes at once, and a failed flush fails only the writers that wait for it', async () => {
    let flushes = 0;
    let failing = false;
    const { handle } = sqlite.open({
      flushWal: () => {
        if (!failing) return Promise.resolve();
        flushes++;
        return Promise.reject(new Error('EIO: the disk went away'));
      },
    });
    await migrate(handle.db);
    failing = true;
    const logged: string[] = [];
    const journal = createJournal(handle, { error: (m) => logged.push(m) });
    await journal.write(record('fast'), 'commit');
    await expect(journal.write(record('safe'))).rejects.toThrow('EIO');
    await journal.flush();
    expect(flushes).toBe(2);
    expect(logged).toEqual([expect.stringContaining('EIO: the disk went away')]);
  });

  it('writes identical operations committed together as one record with their number, and nothing else merged', async () => {
    const { handle } = sqlite.open();
    await migrate(handle.db);
    const journal = createJournal(handle);
    const who = { userId: 'u1', username: 'alice', domainId: null, domainName: '' };
    const op = (ip: string, result: 'success' | 'failure' = 'success') =>
      auditRow({ who, action: 'test.op', target: 'k', result, ip, objectId: 'k1', details: { version: 1 } });
    await Promise.all([
      journal.write({ operations: [op('10.0.0.1')] }, 'commit'),
      journal.write({ operations: [op('10.0.0.1')] }, 'commit'),
      journal.write({ operations: [op('10.0.0.1')] }, 'commit'),
      journal.write({ operations: [op('10.0.0.2')] }, 'commit'),
      journal.write({ audit: [op('10.0.0.1', 'failure')] }),
      journal.write({ audit: [op('10.0.0.1', 'failure')] }),
    ]);
    const rows = await handle.db
      .selectFrom('audit_log')
      .select(['source_ip', 'result', 'count'])
      .where('action', '=', 'test.op')
      .orderBy('result')
      .orderBy('source_ip')
      .execute();
    expect(rows).toEqual([
      { source_ip: '10.0.0.1', result: 'failure', count: 1 },
      { source_ip: '10.0.0.1', result: 'failure', count: 1 },
      { source_ip: '10.0.0.1', result: 'success', count: 3 },
      { source_ip: '10.0.0.2', result: 'success', count: 1 },
    ]);
  });
});

describe.each(await engines())('claims checked in the batch transaction on %s', (engine) => {
  let handle: DatabaseHandle | null = null;
  afterEach(async () => {
    await handle?.close();
    handle = null;
  });

  it('writes the granted writers of one batch, rejects the refused ones with their error, and checks inside the transaction', async () => {
    handle = await throwawayDatabase(engine);
    const journal = createJournal(handle);
    const seen: number[][] = [];
    let room = 3;
    journal.registerClaims('things', async (trx, _kind, asks) => {
      // What the batch wrote is not there yet: the check comes first in its transaction.
      const before = await trx
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'test.claim')
        .execute();
      seen.push([before.length, ...asks]);
      return asks.map((n) => {
        if (n > room) return new Error(`no room for ${n}`);
        room -= n;
        return undefined;
      });
    });
    const write = (target: string, adding: number) =>
      journal.write({
        audit: [auditRow({ who: null, action: 'test.claim', target, result: 'success', ip: '-' })],
        claim: { kind: 'things', adding },
      });
    const results = await Promise.allSettled([write('a', 2), write('b', 2), write('c', 1), write('d', 1)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('no room for 2'));
    expect(seen).toEqual([[0, 2, 2, 1, 1]]); // one batch, one check
    const rows = await handle.db
      .selectFrom('audit_log')
      .select('target')
      .where('action', '=', 'test.claim')
      .execute();
    expect(rows.map((r) => r.target).sort()).toEqual(['a', 'c']);
    await expect(journal.write({ claim: { kind: 'other', adding: 1 } })).rejects.toThrow(
      /no check registered/,
    );
  });
});
