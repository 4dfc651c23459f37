import type { JobOutcome, Jobs } from '../../platform/jobs/jobs.js';
import { createSchedulerRuns, messageOf, type SchedulerHooks } from './scheduler.runs.js';
import { createSchedulerTasks } from './scheduler.tasks.js';

/** The jobs service's name for the scheduler's work (one lease for every task of the cluster). */
export const SCHEDULER_JOB = 'scheduler';

/**
 * Key-rotation tasks (docs/modules.md#scheduler): the calls on tasks (`scheduler.tasks.ts`) and
 * the job that runs them (`scheduler.runs.ts`), behind one service. Tasks and runs live in the
 * database; one job of the jobs service (`scheduler`, under its lease: one node of a cluster at
 * a time) queues the runs that are due and works through them key by key.
 */
export function createSchedulerService(
  deps: Omit<Parameters<typeof createSchedulerRuns>[0], 'hooks'> & {
    jobs: Jobs;
    log?: { warn(details: object, message: string): void };
  },
) {
  const hooks: SchedulerHooks = {};
  /** Runs this node started for "run now" and has not seen finish. */
  const kicks = new Set<Promise<unknown>>();

  function kick(): void {
    const promise = deps.jobs
      .trigger(SCHEDULER_JOB)
      .catch((err: unknown) => deps.log?.warn({ err: messageOf(err) }, 'scheduler run failed'))
      .finally(() => kicks.delete(promise));
    kicks.add(promise);
  }

  const { runJob } = createSchedulerRuns({ ...deps, hooks });

  return {
    hooks,
    runJob,
    /**
     * One round of the scheduler on this node now (due or not): what the job does on its timer.
     * Null when another node holds the lease or this node is already at it.
     */
    async round(): Promise<JobOutcome | null> {
      await this.settle();
      return deps.jobs.trigger(SCHEDULER_JOB);
    },
    /** Waits for the runs this node started for "run now". */
    async settle(): Promise<void> {
      while (kicks.size > 0) await Promise.allSettled([...kicks]);
    },
    ...createSchedulerTasks({ ...deps, kick }),
  };
}

export type SchedulerService = ReturnType<typeof createSchedulerService>;
