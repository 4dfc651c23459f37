import { Code, type api, type Input, type QueryInput, type SchedulerRun } from '@ksp/contracts';
import type { AuditWriter, CallerRecord } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { SchedulerTaskTable } from '../../platform/db/schema.js';
import { conflict, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { localized } from '../../platform/stored-message.js';
import { iso, newId, newRun, toRun, toTask } from './scheduler.rows.js';
import { checkWindow, cronOf, nextRunAt } from './scheduler.schedule.js';
import {
  deleteTasks,
  findTask,
  insertRun,
  insertTask,
  keysOfRun,
  pageOfRuns,
  pageOfTasks,
  tasksIn,
  updateTask,
} from './scheduler.store.js';

/**
 * The scheduler's tasks as the calls see them (docs/modules.md#scheduler): list, create,
 * change, enable, delete, run now and a task's history, each in the caller's current domain.
 */
export function createSchedulerTasks(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  /** Asks this node to run the scheduler's job now (after "run now"). */
  kick: () => void;
}) {
  const { db, clock, audit } = deps;

  async function loadTask(actor: Actor, id: string, trx: Executor = db): Promise<SchedulerTaskTable> {
    const row = await findTask(trx, actor.domainId, id);
    if (!row) throw notFound('scheduler.notFound', { id });
    return row;
  }

  /**
   * Runs a create or update; a refusal of its input (4000, or 4090 for a name taken) is recorded
   * with its reason, then answered.
   */
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
        await audit.byCaller(db, actor, meta, {
          action,
          target,
          result: 'failure',
          details: { reason: err.messageKey },
        });
      }
      throw err;
    }
  }

  /** Writes a task's change and its record in one transaction; a name taken answers 4090. */
  async function saved(
    actor: Actor,
    meta: RequestMeta,
    name: string,
    write: (trx: Executor) => Promise<void>,
    record: CallerRecord,
  ): Promise<void> {
    try {
      await db.transaction().execute(async (trx) => {
        await write(trx);
        await audit.byCaller(trx, actor, meta, record);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('scheduler.nameTaken', { name });
      throw err;
    }
  }

  return {
    async list(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.scheduler.list>) {
      const { rows, total } = await pageOfTasks(db, actor.domainId, query);
      return { data: rows.map((r) => toTask(r, meta.lang)), total };
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
          next_run_at: nextRunAt(schedule, body.enabled, clock()),
          last_run_at: null,
          last_result: null,
          last_error: null,
          created_by: actor.username,
          created_at: at,
          updated_at: at,
        };
        await saved(actor, meta, body.name, (trx) => insertTask(trx, row), {
          action: 'scheduler.create',
          target: row.name,
          objectId: row.id,
          details: { id: row.id, cron, enabled: body.enabled },
        });
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
          next_run_at: nextRunAt(schedule, enabled, clock()),
          updated_at: iso(clock()),
        };
        await saved(actor, meta, next.name, (trx) => updateTask(trx, current.id, next), {
          action: 'scheduler.update',
          target: next.name,
          objectId: current.id,
          details: { id: current.id, cron, enabled },
        });
        return toTask(next, meta.lang);
      });
    },

    async setEnabled(actor: Actor, meta: RequestMeta, id: string, enabled: boolean) {
      const current = await loadTask(actor, id);
      const next = {
        ...current,
        enabled: enabled ? 1 : 0,
        next_run_at: nextRunAt(current, enabled, clock()),
        updated_at: iso(clock()),
      };
      await db.transaction().execute(async (trx) => {
        await updateTask(trx, id, {
          enabled: next.enabled,
          next_run_at: next.next_run_at,
          updated_at: next.updated_at,
        });
        await audit.byCaller(trx, actor, meta, {
          action: enabled ? 'scheduler.enable' : 'scheduler.disable',
          target: current.name,
          objectId: id,
        });
      });
      return toTask(next, meta.lang);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      return db.transaction().execute(async (trx) => {
        const rows = await tasksIn(trx, actor.domainId, ids);
        // Every id must be a task of this domain: another domain's is not found, and nothing is deleted.
        const found = rows.map((r) => r.id);
        const missing = ids.find((id) => !found.includes(id));
        if (missing !== undefined) throw notFound('scheduler.notFound', { id: missing });
        await deleteTasks(trx, found);
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, {
            action: 'scheduler.delete',
            target: r.name,
            objectId: r.id,
          });
        return { deleted: rows.length };
      });
    },

    /** Queues a manual run and asks this node to take the scheduler's lease now. */
    async runNow(actor: Actor, meta: RequestMeta, id: string): Promise<SchedulerRun> {
      const task = await loadTask(actor, id);
      const run = newRun(task, 'manual', actor.username, clock());
      await db.transaction().execute(async (trx) => {
        await insertRun(trx, run);
        await audit.byCaller(trx, actor, meta, {
          action: 'scheduler.run-now',
          target: task.name,
          objectId: task.id,
          details: { run_id: run.id },
        });
      });
      deps.kick();
      return toRun(run, meta.lang);
    },

    async history(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.scheduler.history>) {
      const task = await loadTask(actor, query.id);
      const runs = await pageOfRuns(db, task.id, query);
      const keys = query.run_id
        ? (await keysOfRun(db, task.id, query.run_id)).map((r) => ({
            ...r,
            result: r.result as 'pending' | 'rotated' | 'failed',
            error: localized(r.error, meta.lang),
          }))
        : [];
      return { data: runs.rows.map((r) => toRun(r, meta.lang)), total: runs.total, keys };
    },
  };
}
