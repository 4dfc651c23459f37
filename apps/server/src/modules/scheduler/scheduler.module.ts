import type { KspModule } from '../../platform/module.js';
import { schedulerRoutes } from './scheduler.routes.js';
import type { SchedulerCheckpoint } from './scheduler.runs.js';
import { createSchedulerService, SCHEDULER_JOB, type SchedulerService } from './scheduler.service.js';

/** What the backup module offers the scheduler: the key-rotation backup taken before a run rotates keys. */
export interface RotationBackup {
  take(input: {
    keyIds: string[];
    actor: string;
    /** The rotation task's name and run id: the backup's description names them (in the reader's language). */
    task: string;
    run: string;
    /** Stops waiting for the archive (the scheduler's shutdown); the backup stays queued. */
    signal?: AbortSignal | undefined;
  }): Promise<{ id: string }>;
}

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Provided by the backup module; the scheduler runs without it (no backup) when none is installed. */
    rotationBackup: RotationBackup;
    scheduler: SchedulerService;
  }
}

/** How often the scheduler's job looks for due tasks (the jobs service's timer ticks every 5 s). */
const ROUND_SECONDS = 15;

/** Settings › scheduler: key-rotation tasks on a cron schedule (README.md). */
export const schedulerModule: KspModule = {
  name: 'scheduler',
  register(ctx) {
    const scheduler = createSchedulerService({
      db: ctx.db,
      clock: ctx.clock,
      node: ctx.config.nodeName,
      audit: ctx.audit,
      jobs: ctx.jobs,
      // Looked up when a run needs them: the key module registers first, the backup module may come later.
      keyRotation: () => ctx.use('keyRotation'),
      rotationBackup: () => ctx.maybeUse('rotationBackup'),
      log: ctx.log,
    });
    ctx.jobs.register<SchedulerCheckpoint>({
      name: SCHEDULER_JOB,
      every: ROUND_SECONDS,
      run: (run) => scheduler.runJob(run),
    });
    ctx.provide('scheduler', scheduler);
    schedulerRoutes(ctx.app, ctx.gate, scheduler);
  },
};
