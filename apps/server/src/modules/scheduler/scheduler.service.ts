import { v7 as uuidv7 } from 'uuid';
import {
  Code,
  KeyRotationQuery,
  type Language,
  type api,
  type Input,
  type QueryInput,
  type SchedulerInterval,
  type SchedulerRun,
  type SchedulerTask,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import { subjectOf } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { nonceBytes } from '../../platform/crypto/random.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { SchedulerRunTable, SchedulerTaskTable } from '../../platform/db/schema.js';
import { conflict, KspError, notFound } from '../../platform/errors.js';
import { localized, storedError, storedMessage } from '../../platform/stored-message.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { JobOutcome, JobRun, Jobs } from '../../platform/jobs/jobs.js';
import type { ModuleServices } from '../../platform/module.js';
import { checkWindow, cronOf, nextSlot, type TaskSchedule } from './scheduler.schedule.js';

/** The jobs service's name for the scheduler's work (one lease for every task of the cluster). */
export const SCHEDULER_JOB = 'scheduler';
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

const iso = (d: Date) => d.toISOString();
const newId = () => uuidv7({ random: nonceBytes(16) });
/** A run's error as stored (platform/stored-message.ts): read in the reader's language. */
const messageOf = storedError;

function toTask(row: SchedulerTaskTable, lang: Language = 'en'): SchedulerTask {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type as SchedulerTask['type'],
    cron: row.cron,
    interval: row.interval === null ? null : (JSON.parse(row.interval) as SchedulerInterval),
    start_at: row.start_at,
    end_at: row.end_at,
    enabled: row.enabled === 1,
    query: KeyRotationQuery.parse(JSON.parse(row.query)),
    next_run_at: row.next_run_at,
    last_run_at: row.last_run_at,
    last_result: row.last_result as SchedulerTask['last_result'],
    last_error: localized(row.last_error, lang),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toRun(row: SchedulerRunTable, lang: Language = 'en'): SchedulerRun {
  return {
    id: row.id,
    task_id: row.task_id,
    task_name: row.task_name,
    trigger: row.trigger as SchedulerRun['trigger'],
    state: row.state as SchedulerRun['state'],
    requested_by: row.requested_by,
    node: row.node,
    backup_id: row.backup_id,
    matched: row.matched,
    rotated: row.rotated,
    failed: row.failed,
    error: localized(row.error, lang),
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/**
 * Key-rotation tasks (docs/modules.md#scheduler). Tasks and runs live in the database; one job of the
 * jobs service (`scheduler`, under its lease: one node of a cluster at a time) queues the runs
 * that are due and works through them key by key. Each key's rotation is its own transaction,
 * which also marks the key done in the run, so a run left by a node that died is resumed by
 * the next holder without rotating any key twice.
 */
export function createSchedulerService(deps: {
  db: Db;
  clock: Clock;
  node: string;
  audit: AuditWriter;
  jobs: Jobs;
  keyRotation: () => ModuleServices['keyRotation'];
  /** The backup module's key-rotation backup, when one is installed. */
  rotationBackup: () => ModuleServices['rotationBackup'] | undefined;
  log?: { warn(details: object, message: string): void };
}) {
  const { db, clock, audit } = deps;
  const hooks: SchedulerHooks = {};
  /** Runs this node started for "run now" and has not seen finish. */
  const kicks = new Set<Promise<unknown>>();

  async function loadTask(actor: Actor, id: string, trx: Executor = db): Promise<SchedulerTaskTable> {
    const row = await trx
      .selectFrom('scheduler_task')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .executeTakeFirst();
    if (!row) throw notFound('scheduler.notFound', { id });
    return row;
  }

  /** Writes a refusal record for bad input, then answers the refusal. */
  async function refusing<T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    fn: () => Promise<T>,
  ) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KspError && (err.code === Code.INVALID || err.code === Code.CONFLICT)) {
        await audit.write(db, {
          who: subjectOf(actor),
          action,
          target,
          result: 'failure',
          ip: meta.ip,
          details: { reason: err.messageKey },
        });
      }
      throw err;
    }
  }

  const nextRunOf = (schedule: TaskSchedule, enabled: boolean) => {
    if (!enabled) return null;
    const next = nextSlot(schedule, clock());
    return next ? iso(next) : null;
  };

  function kick(): void {
    const promise = deps.jobs
      .trigger(SCHEDULER_JOB)
      .catch((err: unknown) => deps.log?.warn({ err: messageOf(err) }, 'scheduler run failed'))
      .finally(() => kicks.delete(promise));
    kicks.add(promise);
  }

  // ---- the job: queue what is due, then work through the runs ----

  /** Queues one run per due task (missed slots collapse into one) and moves its next run on. */
  async function queueDue(): Promise<void> {
    const now = clock();
    const due = await db
      .selectFrom('scheduler_task')
      .selectAll()
      .where('enabled', '=', 1)
      .where('next_run_at', '<=', iso(now))
      .orderBy('next_run_at')
      .execute();
    for (const task of due) {
      const slot = new Date(task.next_run_at!);
      await db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('scheduler_task')
          .set({ next_run_at: nextRunOf(task, true) })
          .where('id', '=', task.id)
          .where('next_run_at', '=', task.next_run_at)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) return;
        await trx
          .insertInto('scheduler_run')
          .values(
            newRun(
              task,
              now.getTime() - slot.getTime() > MISSED_AFTER_MS ? 'missed' : 'schedule',
              'scheduler',
            ),
          )
          .execute();
      });
    }
  }

  function newRun(task: SchedulerTaskTable, trigger: SchedulerRun['trigger'], by: string): SchedulerRunTable {
    return {
      id: newId(),
      task_id: task.id,
      domain_id: task.domain_id,
      task_name: task.name,
      trigger,
      state: 'pending',
      requested_by: by,
      node: null,
      backup_id: null,
      matched: 0,
      rotated: 0,
      failed: 0,
      error: null,
      created_at: iso(clock()),
      started_at: null,
      finished_at: null,
    };
  }

  /** The run to work on: one left unfinished first (resume), then the oldest queued. */
  async function nextRun(): Promise<SchedulerRunTable | undefined> {
    const running = await db
      .selectFrom('scheduler_run')
      .selectAll()
      .where('state', '=', 'running')
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    if (running) return running;
    return db
      .selectFrom('scheduler_run')
      .selectAll()
      .where('state', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
  }

  async function finish(run: SchedulerRunTable, state: 'success' | 'failure', error: string | null) {
    const at = iso(clock());
    const counts = await db
      .selectFrom('scheduler_run')
      .select(['rotated', 'failed', 'matched', 'backup_id'])
      .where('id', '=', run.id)
      .executeTakeFirst();
    const finished = await db.transaction().execute(async (trx) => {
      // Only a run still open is finished: a node that lost the lease to one that finished it stops here.
      const closed = await trx
        .updateTable('scheduler_run')
        .set({ state, error, finished_at: at })
        .where('id', '=', run.id)
        .where('state', 'in', ['pending', 'running'])
        .executeTakeFirst();
      if (Number(closed.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('scheduler_task')
        .set({ last_result: state, last_error: error, last_run_at: run.started_at ?? at })
        .where('id', '=', run.task_id)
        .execute();
      await audit.write(trx, {
        who: {
          userId: null,
          username: 'scheduler',
          domainId: run.domain_id,
          domainName: '',
          source: 'scheduler',
        },
        action: 'scheduler.run',
        target: run.task_name,
        result: state,
        ip: '',
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
      });
      return true;
    });
    if (!finished) return;
    // Keep the last HISTORY_SIZE finished runs of the task.
    const old = await db
      .selectFrom('scheduler_run')
      .select('id')
      .where('task_id', '=', run.task_id)
      .where('state', 'in', ['success', 'failure'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(HISTORY_SIZE)
      .limit(1000)
      .execute();
    if (old.length > 0) {
      const ids = old.map((r) => r.id);
      await db.deleteFrom('scheduler_run_key').where('run_id', 'in', ids).execute();
      await db.deleteFrom('scheduler_run').where('id', 'in', ids).execute();
    }
  }

  /** Freezes the keys the query matches now into the run and marks it running. */
  async function begin(run: SchedulerRunTable, task: SchedulerTaskTable): Promise<SchedulerRunTable> {
    const query = KeyRotationQuery.parse(JSON.parse(task.query));
    const keys = await deps.keyRotation().match(task.domain_id, query, clock());
    const at = iso(clock());
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < keys.length; i += BATCH) {
        await trx
          .insertInto('scheduler_run_key')
          .values(
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
          )
          .execute();
      }
      await trx
        .updateTable('scheduler_run')
        .set({ state: 'running', started_at: at, node: deps.node, matched: keys.length })
        .where('id', '=', run.id)
        .execute();
      await trx
        .updateTable('scheduler_task')
        .set({ last_result: 'running', last_error: null, last_run_at: at })
        .where('id', '=', task.id)
        .execute();
    });
    return { ...run, state: 'running', started_at: at, node: deps.node, matched: keys.length };
  }

  async function execute(found: SchedulerRunTable, job: JobRun<SchedulerCheckpoint>): Promise<void> {
    const task = await db
      .selectFrom('scheduler_task')
      .selectAll()
      .where('id', '=', found.task_id)
      .executeTakeFirst();
    if (!task) {
      await db.deleteFrom('scheduler_run_key').where('run_id', '=', found.id).execute();
      await db.deleteFrom('scheduler_run').where('id', '=', found.id).execute();
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
    } else await db.updateTable('scheduler_run').set({ node: deps.node }).where('id', '=', run.id).execute();

    // The key-rotation backup comes first: no key rotates without it (when a backup module is installed).
    const backup = deps.rotationBackup();
    if (backup && run.backup_id === null && run.matched > 0) {
      const keyIds = (
        await db
          .selectFrom('scheduler_run_key')
          .select('key_id')
          .where('run_id', '=', run.id)
          .orderBy('seq')
          .execute()
      ).map((k) => k.key_id);
      let backupId: string;
      try {
        backupId = (
          await backup.take({
            keyIds,
            actor: run.requested_by,
            task: task.name,
            run: run.id,
            signal: job.signal,
          })
        ).id;
      } catch (err) {
        // Stopped while waiting for the archive (shutdown): the run resumes later, nothing rotated.
        if (job.signal.aborted) throw err;
        await db
          .updateTable('scheduler_run_key')
          .set({ result: 'failed', error: storedMessage('scheduler.keyNotBackedUp') })
          .where('run_id', '=', run.id)
          .where('result', '=', 'pending')
          .execute();
        await finish(run, 'failure', storedMessage('scheduler.backupFailed', { reason: messageOf(err) }));
        return;
      }
      await db.updateTable('scheduler_run').set({ backup_id: backupId }).where('id', '=', run.id).execute();
      run = { ...run, backup_id: backupId };
    }

    const actor: Actor = {
      userId: '',
      username: 'scheduler',
      domainId: task.domain_id,
      domainName: task.domain_name,
      sessionId: '',
      permissions: new Set(),
      mustChangePassword: false,
      directory: null,
      kind: 'session',
      systemScope: false,
    };
    const meta: RequestMeta = { ip: '', lang: 'en', userAgent: 'scheduler' };
    const rotation = deps.keyRotation();
    let done = 0;
    for (;;) {
      const batch = await db
        .selectFrom('scheduler_run_key')
        .selectAll()
        .where('run_id', '=', run.id)
        .where('result', '=', 'pending')
        .orderBy('seq')
        .limit(BATCH)
        .execute();
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
              const marked = await trx
                .updateTable('scheduler_run_key')
                .set({ result: 'rotated', version, at: iso(clock()) })
                .where('run_id', '=', run.id)
                .where('seq', '=', key.seq)
                .where('result', '=', 'pending')
                .executeTakeFirst();
              if (Number(marked.numUpdatedRows) !== 1) throw new AlreadyDone();
              await trx
                .updateTable('scheduler_run')
                .set((eb) => ({ rotated: eb('rotated', '+', 1) }))
                .where('id', '=', run.id)
                .execute();
            },
          });
        } catch (err) {
          if (!(err instanceof AlreadyDone)) {
            const failed = await db
              .updateTable('scheduler_run_key')
              .set({ result: 'failed', error: messageOf(err), at: iso(clock()) })
              .where('run_id', '=', run.id)
              .where('seq', '=', key.seq)
              .where('result', '=', 'pending')
              .executeTakeFirst();
            if (Number(failed.numUpdatedRows) === 1) {
              await db
                .updateTable('scheduler_run')
                .set((eb) => ({ failed: eb('failed', '+', 1) }))
                .where('id', '=', run.id)
                .execute();
            }
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
    const counts = await db
      .selectFrom('scheduler_run')
      .select(['failed', 'matched'])
      .where('id', '=', run.id)
      .executeTakeFirst();
    if (!counts) return;
    if (counts.failed > 0) {
      await finish(
        run,
        'failure',
        storedMessage('scheduler.keysFailed', { failed: counts.failed, matched: counts.matched }),
      );
    } else {
      await finish(run, 'success', null);
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

  async function pageOfRuns(taskId: string, page: number, pageSize: number, lang: Language) {
    const [rows, total] = await Promise.all([
      db
        .selectFrom('scheduler_run')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset((page - 1) * pageSize)
        .limit(pageSize)
        .execute(),
      db
        .selectFrom('scheduler_run')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow(),
    ]);
    return { data: rows.map((r) => toRun(r, lang)), total: Number(total.n) };
  }

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

    async list(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.scheduler.list>) {
      const base = db.selectFrom('scheduler_task').where('domain_id', '=', actor.domainId);
      const [rows, total] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .offset((query.page - 1) * query.page_size)
          .limit(query.page_size)
          .execute(),
        base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { data: rows.map((r) => toTask(r, meta.lang)), total: Number(total.n) };
    },

    create(actor: Actor, meta: RequestMeta, body: Input<typeof api.scheduler.create>) {
      return refusing(actor, meta, 'scheduler.create', body.name, async () => {
        const cron = cronOf(body);
        const schedule = { cron, start_at: body.start_at ?? null, end_at: body.end_at ?? null };
        checkWindow(schedule, clock());
        const at = iso(clock());
        const row: SchedulerTaskTable = {
          id: newId(),
          domain_id: actor.domainId,
          domain_name: actor.domainName,
          name: body.name,
          description: body.description,
          type: body.type,
          interval: body.interval ? JSON.stringify(body.interval) : null,
          ...schedule,
          enabled: body.enabled ? 1 : 0,
          query: JSON.stringify(body.query),
          next_run_at: nextRunOf(schedule, body.enabled),
          last_run_at: null,
          last_result: null,
          last_error: null,
          created_by: actor.username,
          created_at: at,
          updated_at: at,
        };
        try {
          await db.transaction().execute(async (trx) => {
            await trx.insertInto('scheduler_task').values(row).execute();
            await audit.write(trx, {
              who: subjectOf(actor),
              action: 'scheduler.create',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { id: row.id, cron, enabled: body.enabled },
            });
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw conflict('scheduler.nameTaken', { name: body.name });
          throw err;
        }
        return toTask(row, meta.lang);
      });
    },

    update(actor: Actor, meta: RequestMeta, body: Input<typeof api.scheduler.update>) {
      return refusing(actor, meta, 'scheduler.update', body.id, async () => {
        const current = await loadTask(actor, body.id);
        const reschedule = body.cron !== undefined || body.interval !== undefined;
        const cron = reschedule ? cronOf(body) : current.cron;
        const schedule = {
          cron,
          start_at: body.start_at === undefined ? current.start_at : body.start_at,
          end_at: body.end_at === undefined ? current.end_at : body.end_at,
        };
        checkWindow(schedule, clock());
        const enabled = body.enabled ?? current.enabled === 1;
        const next: SchedulerTaskTable = {
          ...current,
          name: body.name ?? current.name,
          description: body.description ?? current.description,
          interval: reschedule ? (body.interval ? JSON.stringify(body.interval) : null) : current.interval,
          ...schedule,
          enabled: enabled ? 1 : 0,
          query: body.query ? JSON.stringify(body.query) : current.query,
          next_run_at: nextRunOf(schedule, enabled),
          updated_at: iso(clock()),
        };
        try {
          await db.transaction().execute(async (trx) => {
            await trx.updateTable('scheduler_task').set(next).where('id', '=', current.id).execute();
            await audit.write(trx, {
              who: subjectOf(actor),
              action: 'scheduler.update',
              target: next.name,
              result: 'success',
              ip: meta.ip,
              objectId: current.id,
              details: { id: current.id, cron, enabled },
            });
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw conflict('scheduler.nameTaken', { name: next.name });
          throw err;
        }
        return toTask(next, meta.lang);
      });
    },

    async setEnabled(actor: Actor, meta: RequestMeta, id: string, enabled: boolean) {
      const current = await loadTask(actor, id);
      const next = {
        ...current,
        enabled: enabled ? 1 : 0,
        next_run_at: nextRunOf(current, enabled),
        updated_at: iso(clock()),
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('scheduler_task')
          .set({ enabled: next.enabled, next_run_at: next.next_run_at, updated_at: next.updated_at })
          .where('id', '=', id)
          .execute();
        await audit.write(trx, {
          who: subjectOf(actor),
          action: enabled ? 'scheduler.enable' : 'scheduler.disable',
          target: current.name,
          result: 'success',
          ip: meta.ip,
          objectId: id,
        });
      });
      return toTask(next, meta.lang);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('scheduler_task')
          .select(['id', 'name'])
          .where('domain_id', '=', actor.domainId)
          .where('id', 'in', ids)
          .execute();
        // Every id must be a task of this domain: another domain's is not found, and nothing is deleted.
        const found = rows.map((r) => r.id);
        const missing = ids.find((id) => !found.includes(id));
        if (missing !== undefined) throw notFound('scheduler.notFound', { id: missing });
        await trx
          .deleteFrom('scheduler_run_key')
          .where('run_id', 'in', (eb) =>
            eb.selectFrom('scheduler_run').select('id').where('task_id', 'in', found),
          )
          .execute();
        await trx.deleteFrom('scheduler_run').where('task_id', 'in', found).execute();
        await trx.deleteFrom('scheduler_task').where('id', 'in', found).execute();
        for (const r of rows) {
          await audit.write(trx, {
            who: subjectOf(actor),
            action: 'scheduler.delete',
            target: r.name,
            result: 'success',
            ip: meta.ip,
            objectId: r.id,
          });
        }
        return { deleted: rows.length };
      });
    },

    /** Queues a manual run and asks this node to take the scheduler's lease now. */
    async runNow(actor: Actor, meta: RequestMeta, id: string): Promise<SchedulerRun> {
      const task = await loadTask(actor, id);
      const run = newRun(task, 'manual', actor.username);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('scheduler_run').values(run).execute();
        await audit.write(trx, {
          who: subjectOf(actor),
          action: 'scheduler.run-now',
          target: task.name,
          result: 'success',
          ip: meta.ip,
          objectId: task.id,
          details: { run_id: run.id },
        });
      });
      kick();
      return toRun(run, meta.lang);
    },

    async history(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.scheduler.history>) {
      const task = await loadTask(actor, query.id);
      const runs = await pageOfRuns(task.id, query.page, query.page_size, meta.lang);
      let keys: {
        key_id: string;
        key_name: string;
        result: 'pending' | 'rotated' | 'failed';
        version: number | null;
        error: string | null;
      }[] = [];
      if (query.run_id) {
        const rows = await db
          .selectFrom('scheduler_run_key')
          .innerJoin('scheduler_run', 'scheduler_run.id', 'scheduler_run_key.run_id')
          .select([
            'scheduler_run_key.key_id',
            'scheduler_run_key.key_name',
            'scheduler_run_key.result',
            'scheduler_run_key.version',
            'scheduler_run_key.error',
          ])
          .where('scheduler_run_key.run_id', '=', query.run_id)
          .where('scheduler_run.task_id', '=', task.id)
          .orderBy('scheduler_run_key.seq')
          .limit(1000)
          .execute();
        keys = rows.map((r) => ({
          ...r,
          result: r.result as 'pending' | 'rotated' | 'failed',
          error: localized(r.error, meta.lang),
        }));
      }
      return { ...runs, keys };
    },
  };
}

export type SchedulerService = ReturnType<typeof createSchedulerService>;
