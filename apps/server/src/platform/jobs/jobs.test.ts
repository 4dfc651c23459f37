import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines, throwawayDatabase } from '../../test/harness.js';
import type { DatabaseHandle } from '../db/database.js';
import { createJobs, LeaseLostError, type Jobs, type JobsOptions } from './jobs.js';

/** A promise the test settles when it wants the job to go on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.each(await engines())('jobs on %s', (engine) => {
  let database: DatabaseHandle;
  let now: Date;
  const clock = () => now;
  const advance = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));
  const nodes: Jobs[] = [];
  const node = (name: string, options: Partial<JobsOptions> = {}) => {
    const jobs = createJobs({ db: database.db, clock, node: name, ...options });
    nodes.push(jobs);
    return jobs;
  };

  beforeEach(async () => {
    now = new Date('2026-03-01T02:58:00.000Z');
    database = await throwawayDatabase(engine);
  });
  afterEach(async () => {
    for (const jobs of nodes.splice(0)) await jobs.stop();
    await database.close();
  });

  it('runs an interval job when due, and not before', async () => {
    const jobs = node('a');
    let runs = 0;
    jobs.register({ name: 'sweep', every: 60, run: async () => void runs++ });
    expect(await jobs.runDue()).toMatchObject([{ job: 'sweep', result: 'success', resumed: false }]);
    expect(await jobs.runDue()).toEqual([]);
    advance(59);
    expect(await jobs.runDue()).toEqual([]);
    advance(1);
    expect(await jobs.runDue()).toMatchObject([{ result: 'success' }]);
    expect(runs).toBe(2);
  });

  it('runs a cron job at its slots only', async () => {
    const jobs = node('a');
    const started: string[] = [];
    jobs.register({
      name: 'nightly',
      cron: '0 3 * * *',
      run: async () => void started.push(now.toISOString()),
    });
    expect(await jobs.runDue()).toEqual([]);
    advance(120); // 03:00
    expect(await jobs.runDue()).toHaveLength(1);
    advance(30 * 60);
    expect(await jobs.runDue()).toEqual([]);
    advance(24 * 3600 - 30 * 60); // 03:00 the next day
    expect(await jobs.runDue()).toHaveLength(1);
    expect(started).toEqual(['2026-03-01T03:00:00.000Z', '2026-03-02T03:00:00.000Z']);
  });

  it('lets one node run a job while it holds the lease; the others skip it', async () => {
    const a = node('a');
    const b = node('b');
    const release = gate();
    const ran: string[] = [];
    const job = (name: string) => async () => {
      ran.push(name);
      if (name === 'a') await release.opened;
    };
    a.register({ name: 'sweep', every: 60, run: job('a') });
    b.register({ name: 'sweep', every: 60, run: job('b') });
    const first = a.runDue();
    while (ran.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(await b.runDue()).toEqual([]);
    release.open();
    expect(await first).toMatchObject([{ result: 'success' }]);
    // Released once done: the next due run may go to either node.
    advance(60);
    expect(await b.runDue()).toMatchObject([{ result: 'success' }]);
    expect(ran).toEqual(['a', 'b']);
    expect((await b.history('sweep')).map((r) => r.node)).toEqual(['b', 'a']);
  });

  it('takes over an expired lease and resumes the run from its checkpoint; the stalled node learns it lost', async () => {
    const a = node('a', { leaseSeconds: 30 });
    const b = node('b', { leaseSeconds: 30 });
    const stalled = gate();
    let lost: unknown = null;
    a.register<{ done: number }>({
      name: 'rewrap',
      every: 3600,
      run: async (run) => {
        await run.save({ done: 3 });
        await stalled.opened;
        await run.save({ done: 4 }).catch((err: unknown) => {
          lost = err;
          throw err;
        });
      },
    });
    const seen: ({ done: number } | null)[] = [];
    b.register<{ done: number }>({
      name: 'rewrap',
      every: 3600,
      run: async (run) => {
        seen.push(run.checkpoint);
        await run.save({ done: 10 });
      },
    });
    const first = a.runDue();
    while ((await a.history('rewrap'))[0]?.checkpoint !== '{"done":3}')
      await new Promise((r) => setTimeout(r, 5));
    expect(await b.runDue()).toEqual([]);
    advance(31);
    const [taken] = await b.runDue();
    expect(taken).toMatchObject({ result: 'success', resumed: true });
    expect(seen).toEqual([{ done: 3 }]);
    stalled.open();
    expect(await first).toMatchObject([{ result: 'interrupted', runId: taken!.runId }]);
    expect(lost).toBeInstanceOf(LeaseLostError);
    const [run] = await b.history('rewrap');
    expect(run).toMatchObject({ id: taken!.runId, node: 'b', state: 'success', checkpoint: '{"done":10}' });
  });

  it('leaves a run stopped at shutdown unfinished, and the next holder resumes it', async () => {
    const a = node('a');
    a.register<{ page: number }>({
      name: 'export',
      every: 3600,
      run: async (run) => {
        await run.save({ page: 7 });
        // The checkpoint is visible once committed, before save() has answered (a durable
        // write waits for its disk flush): the shutdown may already have begun by now.
        await new Promise<void>((r) => {
          if (run.signal.aborted) r();
          else run.signal.addEventListener('abort', () => r());
        });
        run.signal.throwIfAborted();
      },
    });
    const first = a.runDue();
    while ((await a.history('export'))[0]?.checkpoint !== '{"page":7}')
      await new Promise((r) => setTimeout(r, 5));
    await a.stop();
    expect(await first).toMatchObject([{ result: 'interrupted' }]);
    expect(await a.runDue()).toEqual([]);

    const b = node('b');
    let resumedFrom: unknown;
    b.register<{ page: number }>({
      name: 'export',
      every: 3600,
      run: async (run) => void (resumedFrom = run.checkpoint),
    });
    // The lease was released at shutdown: no need to wait for it to expire.
    expect(await b.runDue()).toMatchObject([{ result: 'success', resumed: true }]);
    expect(resumedFrom).toEqual({ page: 7 });
  });

  it('records a failure in the history and keeps only the last runs', async () => {
    const jobs = node('a', { historySize: 3 });
    let attempt = 0;
    jobs.register({
      name: 'flaky',
      every: 10,
      run: async () => {
        if (++attempt === 5) throw new Error('disk full');
      },
    });
    for (let i = 0; i < 5; i++) {
      await jobs.runDue();
      advance(10);
    }
    const history = await jobs.history('flaky');
    expect(history.map((r) => r.state)).toEqual(['failure', 'success', 'success']);
    expect(history[0]).toMatchObject({ error: 'disk full', node: 'a' });
    expect(history[0]!.finished_at).not.toBeNull();
    // A failed run is finished: the job comes due again on its schedule.
    expect(await jobs.runDue()).toMatchObject([{ result: 'success' }]);
  });

  it('refuses a job without exactly one schedule, or registered twice', () => {
    const jobs = node('a');
    const run = async () => undefined;
    expect(() => jobs.register({ name: 'x', run })).toThrow(/either an interval/);
    expect(() => jobs.register({ name: 'x', every: 5, cron: '* * * * *', run })).toThrow(/either/);
    expect(() => jobs.register({ name: 'x', cron: '61 * * * *', run })).toThrow(/minute/);
    jobs.register({ name: 'x', every: 5, run });
    expect(() => jobs.register({ name: 'x', every: 5, run })).toThrow(/registered twice/);
  });
});
