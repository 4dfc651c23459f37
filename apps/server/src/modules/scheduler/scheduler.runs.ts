import { KeyRotationQuery } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { SchedulerRunTable, SchedulerTaskTable } from '../../platform/db/schema.js';
import type { JobRun } from '../../platform/jobs/jobs.js';
import type { ModuleServices } from '../../platform/module.js';
import { storedError, storedMessage } from '../../platform/stored-message.js';
import { systemActor, systemMeta } from '../../platform/system-actor.js';
import { iso, newRun } from './scheduler.rows.js';
import { nextRunAt } from './scheduler.schedule.js';
import {
  closeRun,
  countRunKey,
  deleteRuns,
  dueTasks,
  insertRun,
  insertRunKeys,
  moveNextRun,
  oldestRun,
  pendingKeys,
  runCounts,
  runKeyIds,
  runsBeyond,
  settleKeys,
  taskById,
  updateRun,
  updateTask,
} from './scheduler.store.js';

/** A slot found due later than this after its time was missed (no node ran then): the run says `missed`. */
export const MISSED_AFTER_MS = 5 * 60_000;
/** Finished runs kept per task. */
const HISTORY_SIZE = 50;
/** Keys read and inserted per statement. */
const BATCH = 500;
/**
 * Keys between checkpoints (each renews the lease, or stops this node if another took it).
 * Correctness does not rest on it: a key's progress mark is in its own rotation's transaction.
 */
const SAVE_EVERY = 25;
/** After each key the run idles this many times as long as the key took (bench/scheduler.ts). */
const PACE = 1;
const PACE_MAX_MS = 50;

/** What the scheduler's job saves after each key: the run and the last key done. */
export interface SchedulerCheckpoint {
  run: string;
  seq: number;
}

/** Test seam: called after each key a run finishes (a test stops a "node" there). */
export interface SchedulerHooks {
  afterKey?: (runId: string, done: number) => Promise<void>;
}

/** The rotation was already made (by another holder of the lease): nothing of this attempt is kept. */
class AlreadyDone extends Error {}

/** A run's error as stored (platform/stored-message.ts): read in the reader's language. */
export const messageOf = storedError;

/**
 * The scheduler job's body: queues the runs that are due and works through them key by key
 * (docs/modules.md#scheduler, README.md). Each key's rotation is its own transaction, which
 * also marks the key done in the run, so a run left by a node that died is resumed by the next
 * holder of the lease without rotating any key twice.
 */
export function createSchedulerRuns(deps: {
  db: Db;
  clock: Clock;
  node: string;
  audit: AuditWriter;
  keyRotation: () => ModuleServices['keyRotation'];
  /** The backup module's key-rotation backup, when one is installed. */
  rotationBackup: () => ModuleServices['rotationBackup'] | undefined;
  hooks: SchedulerHooks;
}) {
  const { db, clock, audit, hooks } = deps;

  /** Queues one run per due task (missed slots collapse into one) and moves its next run on. */
  async function queueDue(): Promise<void> {
    const now = clock();
    for (const task of await dueTasks(db, iso(now))) {
      const slot = new Date(task.next_run_at!);
      await db.transaction().execute(async (trx) => {
        if (!(await moveNextRun(trx, task.id, task.next_run_at, nextRunAt(task, true, clock())))) return;
        const trigger = now.getTime() - slot.getTime() > MISSED_AFTER_MS ? 'missed' : 'schedule';
        await insertRun(trx, newRun(task, trigger, 'scheduler', clock()));
      });
    }
  }

  /** The run to work on: one left unfinished first (resume), then the oldest queued. */
  async function nextRun(): Promise<SchedulerRunTable | undefined> {
    return (await oldestRun(db, 'running')) ?? oldestRun(db, 'pending');
  }

  async function finish(run: SchedulerRunTable, state: 'success' | 'failure', error: string | null) {
    const at = iso(clock());
    const counts = await runCounts(db, run.id);
    const finished = await db.transaction().execute(async (trx) => {
      // Only a run still open is finished: a node that lost the lease to one that finished it stops here.
      if (!(await closeRun(trx, run.id, { state, error, finished_at: at }))) return false;
      await updateTask(trx, run.task_id, {
        last_result: state,
        last_error: error,
        last_run_at: run.started_at ?? at,
      });
      await audit.byCaller(
        trx,
        systemActor({ username: 'scheduler', domainId: run.domain_id, domainName: '' }),
        systemMeta(),
        {
          action: 'scheduler.run',
          target: run.task_name,
          result: state,
          objectId: run.task_id,
          details: {
            run_id: run.id,
            trigger: run.trigger,
            matched: counts?.matched ?? 0,
            rotated: counts?.rotated ?? 0,
            failed: counts?.failed ?? 0,
            backup_id: counts?.backup_id ?? null,
            ...(error ? { error } : {}),
          },
        },
      );
      return true;
    });
    if (!finished) return;
    // Keep the last HISTORY_SIZE finished runs of the task.
    const old = await runsBeyond(db, run.task_id, HISTORY_SIZE);
    if (old.length > 0) await deleteRuns(db, old);
  }

  /** Freezes the keys the query matches now into the run and marks it running. */
  async function begin(run: SchedulerRunTable, task: SchedulerTaskTable): Promise<SchedulerRunTable> {
    const query = KeyRotationQuery.parse(JSON.parse(task.query));
    const keys = await deps.keyRotation().match(task.domain_id, query, clock());
    const at = iso(clock());
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < keys.length; i += BATCH) {
        await insertRunKeys(
          trx,
          keys.slice(i, i + BATCH).map((k, j) => ({
            run_id: run.id,
            seq: i + j + 1,
            key_id: k.id,
            key_name: k.name,
            result: 'pending',
            version: null,
            error: null,
            at: null,
          })),
        );
      }
      await updateRun(trx, run.id, {
        state: 'running',
        started_at: at,
        node: deps.node,
        matched: keys.length,
      });
      await updateTask(trx, task.id, { last_result: 'running', last_error: null, last_run_at: at });
    });
    return { ...run, state: 'running', started_at: at, node: deps.node, matched: keys.length };
  }

  /**
   * Takes the key-rotation backup of the run's keys (when a backup module is installed and the
   * run has none yet). False when it failed: the run is finished as failed, no key rotated.
   */
  async function backedUp(
    run: SchedulerRunTable,
    task: SchedulerTaskTable,
    job: JobRun<SchedulerCheckpoint>,
  ): Promise<SchedulerRunTable | null> {
    const backup = deps.rotationBackup();
    if (!backup || run.backup_id !== null || run.matched === 0) return run;
    let backupId: string;
    try {
      backupId = (
        await backup.take({
          keyIds: await runKeyIds(db, run.id),
          actor: run.requested_by,
          task: task.name,
          run: run.id,
          signal: job.signal,
        })
      ).id;
    } catch (err) {
      // Stopped while waiting for the archive (shutdown): the run resumes later, nothing rotated.
      if (job.signal.aborted) throw err;
      await settleKeys(db, run.id, null, {
        result: 'failed',
        error: storedMessage('scheduler.keyNotBackedUp'),
      });
      await finish(run, 'failure', storedMessage('scheduler.backupFailed', { reason: messageOf(err) }));
      return null;
    }
    await updateRun(db, run.id, { backup_id: backupId });
    return { ...run, backup_id: backupId };
  }

  /** Rotates the run's pending keys, one transaction each, as the system acting for the task's domain. */
  async function rotateKeys(
    run: SchedulerRunTable,
    task: SchedulerTaskTable,
    job: JobRun<SchedulerCheckpoint>,
  ): Promise<void> {
    const actor = systemActor({
      username: 'scheduler',
      domainId: task.domain_id,
      domainName: task.domain_name,
    });
    const meta = systemMeta('scheduler');
    const rotation = deps.keyRotation();
    let done = 0;
    for (;;) {
      const batch = await pendingKeys(db, run.id, BATCH);
      if (batch.length === 0) break;
      if (done > 0) await job.save({ run: run.id, seq: batch[0]!.seq - 1 });
      for (const key of batch) {
        job.signal.throwIfAborted();
        const began = performance.now();
        try {
          await rotation.rotate(actor, meta, key.key_id, {
            details: { scheduler_task: task.id, scheduler_run: run.id },
            within: async (trx, version) => {
              // Taken by this transaction only if still pending: a second holder's attempt rolls back.
              const marked = await settleKeys(trx, run.id, key.seq, {
                result: 'rotated',
                version,
                at: iso(clock()),
              });
              if (marked !== 1) throw new AlreadyDone();
              await countRunKey(trx, run.id, 'rotated');
            },
          });
        } catch (err) {
          if (!(err instanceof AlreadyDone)) {
            const failed = await settleKeys(db, run.id, key.seq, {
              result: 'failed',
              error: messageOf(err),
              at: iso(clock()),
            });
            if (failed === 1) await countRunKey(db, run.id, 'failed');
          }
        }
        done += 1;
        // Paced: idle PACE times as long as the key took, so the crypto API's writes (group
        // commit) wait behind fewer rotation transactions (docs/performance.md).
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(PACE_MAX_MS, PACE * (performance.now() - began))),
        );
        // Renews the lease; throws if another node took it (the run goes on there).
        if (done % SAVE_EVERY === 0) await job.save({ run: run.id, seq: key.seq });
        await hooks.afterKey?.(run.id, done);
      }
    }
  }

  async function execute(found: SchedulerRunTable, job: JobRun<SchedulerCheckpoint>): Promise<void> {
    const task = await taskById(db, found.task_id);
    if (!task) {
      await deleteRuns(db, [found.id]);
      return;
    }
    let run = found;
    if (run.state === 'pending') {
      try {
        run = await begin(run, task);
      } catch (err) {
        // A run that cannot even begin (the keys cannot be read) fails, rather than block the queue.
        await finish({ ...run, started_at: iso(clock()) }, 'failure', messageOf(err));
        return;
      }
    } else await updateRun(db, run.id, { node: deps.node });

    // The key-rotation backup comes first: no key rotates without it (when a backup module is installed).
    const backed = await backedUp(run, task, job);
    if (!backed) return;
    await rotateKeys(backed, task, job);
    const counts = await runCounts(db, backed.id);
    if (!counts) return;
    if (counts.failed > 0) {
      await finish(
        backed,
        'failure',
        storedMessage('scheduler.keysFailed', { failed: counts.failed, matched: counts.matched }),
      );
    } else {
      await finish(backed, 'success', null);
    }
  }

  /** The scheduler job's body (the jobs service runs it under the lease). */
  async function runJob(job: JobRun<SchedulerCheckpoint>): Promise<void> {
    for (;;) {
      job.signal.throwIfAborted();
      await queueDue();
      const run = await nextRun();
      if (!run) return;
      await execute(run, job);
    }
  }

  return { runJob };
}
