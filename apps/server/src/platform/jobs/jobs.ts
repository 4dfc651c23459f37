import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../auth/session.service.js';
import { nonceBytes } from '../crypto/random.js';
import type { Db, Executor } from '../db/database.js';
import type { JobRunTable } from '../db/schema.js';
import { parseCron, type CronSchedule } from './cron.js';

/** What a job's `run` receives. */
export interface JobRun<C> {
  /** The run's id; a resumed run keeps it. */
  id: string;
  /** What an earlier, interrupted attempt of this run saved last; null for a fresh run. */
  checkpoint: C | null;
  /**
   * Saves progress (JSON) and renews the lease. If this node dies, the next lease holder
   * resumes the run from here. Throws `LeaseLostError` when another node took the lease:
   * the job must stop (it is resumed there).
   */
  save(checkpoint: C): Promise<void>;
  /**
   * Aborted when the node shuts down: stop at the next safe point by throwing
   * (`signal.throwIfAborted()`); the run stays unfinished and resumes later.
   */
  signal: AbortSignal;
}

export interface JobDefinition<C = unknown> {
  /** Unique over the cluster; it names the lease and the history. */
  name: string;
  /** Seconds from one start to the next. Give this or `cron`. */
  every?: number;
  /** A five-field cron schedule, in UTC (platform/jobs/cron.ts). */
  cron?: string;
  run(run: JobRun<C>): Promise<void>;
}

/** What one attempt came to: finished, failed, or stopped to be resumed later. */
export interface JobOutcome {
  job: string;
  runId: string;
  result: 'success' | 'failure' | 'interrupted';
  /** The attempt continued a run an earlier holder left unfinished. */
  resumed: boolean;
  error?: string;
}

export class LeaseLostError extends Error {
  constructor(job: string) {
    super(`Job '${job}': another node holds the lease now`);
  }
}

export interface JobsOptions {
  db: Db;
  clock: Clock;
  /** This node's name, written as the lease holder and on each run. */
  node: string;
  /** How long a lease lasts unless renewed (renewed every third of it while a job runs). */
  leaseSeconds?: number;
  /** Finished runs kept per job. */
  historySize?: number;
  /** How often the production timer looks for due jobs. */
  tickSeconds?: number;
  log?: { warn(details: object, message: string): void };
}

interface Registered {
  def: JobDefinition<unknown>;
  schedule: CronSchedule | null;
  /** A cron job never run before is due from its first slot after registration. */
  since: Date;
}

const iso = (d: Date) => d.toISOString();
const plus = (d: Date, seconds: number) => new Date(d.getTime() + seconds * 1000);

/**
 * Interval and cron jobs for the whole cluster. Each job has a lease in the database, taken
 * with a conditional update, so one node runs it at a time; runs are recorded (history) and
 * can save a checkpoint, so a run left unfinished by a node that died is resumed by the
 * next holder. `runDue()` does one round; `start()` calls it on a timer.
 */
export function createJobs(options: JobsOptions) {
  const { db, clock, node } = options;
  const leaseSeconds = options.leaseSeconds ?? 60;
  const historySize = options.historySize ?? 20;
  const jobs = new Map<string, Registered>();
  /** Jobs this node is running now: never two attempts of one job on one node. */
  const running = new Map<string, Promise<JobOutcome | null>>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | null = null;

  const latestRun = (name: string) =>
    db
      .selectFrom('job_run')
      .selectAll()
      .where('job', '=', name)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();

  function isDue(job: Registered, latest: JobRunTable | undefined, now: Date): boolean {
    const { every } = job.def;
    if (!latest) return job.schedule ? job.schedule.next(job.since) <= now : true;
    const started = new Date(latest.started_at);
    return job.schedule ? job.schedule.next(started) <= now : plus(started, every!) <= now;
  }

  async function acquire(name: string): Promise<boolean> {
    const now = clock();
    await db
      .insertInto('job_lease')
      .values({ name, holder: '', expires_at: iso(new Date(0)) })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const taken = await db
      .updateTable('job_lease')
      .set({ holder: node, expires_at: iso(plus(now, leaseSeconds)) })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', node), eb('expires_at', '<=', iso(now))]))
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  async function renew(trx: Executor, name: string): Promise<boolean> {
    const renewed = await trx
      .updateTable('job_lease')
      .set({ expires_at: iso(plus(clock(), leaseSeconds)) })
      .where('name', '=', name)
      .where('holder', '=', node)
      .executeTakeFirst();
    return Number(renewed.numUpdatedRows) === 1;
  }

  async function release(name: string): Promise<void> {
    await db
      .updateTable('job_lease')
      .set({ holder: '', expires_at: iso(clock()) })
      .where('name', '=', name)
      .where('holder', '=', node)
      .execute();
  }

  async function finish(id: string, state: 'success' | 'failure', error: string | null): Promise<void> {
    await db
      .updateTable('job_run')
      .set({ state, error, finished_at: iso(clock()) })
      .where('id', '=', id)
      .execute();
  }

  /** Keeps the last `historySize` finished runs of a job. */
  async function trim(name: string): Promise<void> {
    await db
      .deleteFrom('job_run')
      .where('job', '=', name)
      .where('state', '!=', 'running')
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('job_run')
          .select('id')
          .where('job', '=', name)
          .where('state', '!=', 'running')
          .orderBy('started_at', 'desc')
          .orderBy('id', 'desc')
          .limit(historySize),
      )
      .execute();
  }

  /** The run to make under the lease: the one left unfinished, a new one if due, or none. */
  async function claimRun(
    job: Registered,
    force: boolean,
  ): Promise<{ row: JobRunTable; resumed: boolean } | null> {
    const name = job.def.name;
    const now = clock();
    const latest = await latestRun(name);
    if (latest?.state === 'running') {
      await db.updateTable('job_run').set({ node }).where('id', '=', latest.id).execute();
      return { row: { ...latest, node }, resumed: true };
    }
    if (!force && !isDue(job, latest, now)) return null;
    const row: JobRunTable = {
      id: uuidv7({ random: nonceBytes(16) }),
      job: name,
      node,
      started_at: iso(now),
      finished_at: null,
      state: 'running',
      checkpoint: null,
      error: null,
    };
    await db.insertInto('job_run').values(row).execute();
    return { row, resumed: false };
  }

  async function attempt(job: Registered, force: boolean): Promise<JobOutcome | null> {
    const name = job.def.name;
    // Cheap look first: most rounds find nothing due and take no lease.
    const latest = await latestRun(name);
    if (!force && latest?.state !== 'running' && !isDue(job, latest, clock())) return null;
    if (!(await acquire(name))) return null;
    try {
      const claimed = await claimRun(job, force);
      if (!claimed) return null;
      const { row, resumed } = claimed;
      const outcome = (result: JobOutcome['result'], error?: string): JobOutcome => ({
        job: name,
        runId: row.id,
        result,
        resumed,
        ...(error === undefined ? {} : { error }),
      });
      const keepAlive = setInterval(
        () => void renew(db, name).catch(() => undefined),
        (leaseSeconds * 1000) / 3,
      );
      keepAlive.unref();
      try {
        await job.def.run({
          id: row.id,
          checkpoint: row.checkpoint === null ? null : (JSON.parse(row.checkpoint) as unknown),
          signal: stopping.signal,
          save: (checkpoint) =>
            db.transaction().execute(async (trx) => {
              if (!(await renew(trx, name))) throw new LeaseLostError(name);
              await trx
                .updateTable('job_run')
                .set({ checkpoint: JSON.stringify(checkpoint) })
                .where('id', '=', row.id)
                .execute();
            }),
        });
        await finish(row.id, 'success', null);
        return outcome('success');
      } catch (err) {
        // Stopped for shutdown, or taken over: left 'running', to be resumed from its checkpoint.
        if (stopping.signal.aborted || err instanceof LeaseLostError) return outcome('interrupted');
        const message = err instanceof Error ? err.message : String(err);
        options.log?.warn({ job: name, run: row.id, err: message }, 'job failed');
        await finish(row.id, 'failure', message);
        return outcome('failure', message);
      } finally {
        clearInterval(keepAlive);
        await trim(name);
      }
    } finally {
      await release(name);
    }
  }

  /** Starts one attempt of a job unless this node is already running it. */
  function launch(job: Registered, force = false): Promise<JobOutcome | null> {
    const name = job.def.name;
    if (running.has(name)) return Promise.resolve(null);
    const promise = attempt(job, force).finally(() => running.delete(name));
    running.set(name, promise);
    return promise;
  }

  /** One round: runs every due or unfinished job this node can take the lease of. */
  async function runDue(): Promise<JobOutcome[]> {
    if (stopping.signal.aborted) return [];
    const outcomes = await Promise.all([...jobs.values()].map((job) => launch(job)));
    return outcomes.filter((o): o is JobOutcome => o !== null);
  }

  return {
    runDue,
    /**
     * Runs one job now, due or not (the scheduler's "run now"), if this node can take its lease:
     * after the attempt under way on this node, if any. Null when another node holds the lease
     * (that node's run, or its next round, does the work).
     */
    async trigger(name: string): Promise<JobOutcome | null> {
      const job = jobs.get(name);
      if (!job) throw new Error(`Job '${name}' is not registered`);
      for (let current = running.get(name); current; current = running.get(name)) await current;
      if (stopping.signal.aborted) return null;
      return launch(job, true);
    },
    /** Adds a job (at registration, before `start`). */
    register<C>(def: JobDefinition<C>): void {
      if (jobs.has(def.name)) throw new Error(`Job '${def.name}' is registered twice`);
      if ((def.every === undefined) === (def.cron === undefined)) {
        throw new Error(`Job '${def.name}' needs either an interval (every) or a cron schedule`);
      }
      if (def.every !== undefined && !(def.every > 0)) {
        throw new Error(`Job '${def.name}': the interval must be positive`);
      }
      jobs.set(def.name, {
        def,
        schedule: def.cron === undefined ? null : parseCron(def.cron),
        since: clock(),
      });
    },
    /** The runs of a job, newest first (at most `historySize` finished ones). */
    history(name: string): Promise<JobRunTable[]> {
      return db
        .selectFrom('job_run')
        .selectAll()
        .where('job', '=', name)
        .orderBy('started_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },
    /** Looks for due jobs on a timer (production); tests call `runDue` instead. */
    start(): void {
      if (timer || jobs.size === 0) return;
      timer = setInterval(
        () => {
          runDue().catch((err: unknown) =>
            options.log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'jobs round failed'),
          );
        },
        (options.tickSeconds ?? 5) * 1000,
      );
      timer.unref();
    },
    /** Stops the timer, asks running jobs to stop, and waits for them (leases released). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      stopping.abort();
      await Promise.allSettled([...running.values()]);
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
