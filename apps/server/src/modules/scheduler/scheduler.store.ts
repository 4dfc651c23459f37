import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type {
  SchedulerRunKeyTable,
  SchedulerRunTable,
  SchedulerTaskTable,
} from '../../platform/db/schema.js';

// ---- tasks ----

/** A task of one domain (another domain's is not found). */
export function findTask(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('scheduler_task')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A task whatever its domain (the job's view). */
export function taskById(db: Executor, id: string) {
  return db.selectFrom('scheduler_task').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of a domain's tasks, newest first, with their total. */
export function pageOfTasks(db: Executor, domainId: string, page: PageQuery) {
  return pagedRows(db.selectFrom('scheduler_task').where('domain_id', '=', domainId), page, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

/** Enabled tasks whose next run is at or before `at`, soonest first. */
export function dueTasks(db: Executor, at: string) {
  return db
    .selectFrom('scheduler_task')
    .selectAll()
    .where('enabled', '=', 1)
    .where('next_run_at', '<=', at)
    .orderBy('next_run_at')
    .execute();
}

/** Moves a task's next run from `from` to `to`; false when another round moved it first. */
export async function moveNextRun(
  db: Executor,
  id: string,
  from: string | null,
  to: string | null,
): Promise<boolean> {
  const moved = await db
    .updateTable('scheduler_task')
    .set({ next_run_at: to })
    .where('id', '=', id)
    .where('next_run_at', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

export async function insertTask(db: Executor, row: SchedulerTaskTable): Promise<void> {
  await db.insertInto('scheduler_task').values(row).execute();
}

export async function updateTask(
  db: Executor,
  id: string,
  changes: Partial<SchedulerTaskTable>,
): Promise<void> {
  await db.updateTable('scheduler_task').set(changes).where('id', '=', id).execute();
}

/** The tasks of `ids` that belong to the domain (id and name). */
export function tasksIn(db: Executor, domainId: string, ids: string[]) {
  return db
    .selectFrom('scheduler_task')
    .select(['id', 'name'])
    .where('domain_id', '=', domainId)
    .where('id', 'in', ids)
    .execute();
}

/** Deletes tasks with their runs and the runs' keys. */
export async function deleteTasks(db: Executor, ids: string[]): Promise<void> {
  await db
    .deleteFrom('scheduler_run_key')
    .where('run_id', 'in', (eb) => eb.selectFrom('scheduler_run').select('id').where('task_id', 'in', ids))
    .execute();
  await db.deleteFrom('scheduler_run').where('task_id', 'in', ids).execute();
  await db.deleteFrom('scheduler_task').where('id', 'in', ids).execute();
}

// ---- runs ----

export async function insertRun(db: Executor, row: SchedulerRunTable): Promise<void> {
  await db.insertInto('scheduler_run').values(row).execute();
}

export async function updateRun(
  db: Executor,
  id: string,
  changes: Partial<Pick<SchedulerRunTable, 'state' | 'started_at' | 'node' | 'matched' | 'backup_id'>>,
): Promise<void> {
  await db.updateTable('scheduler_run').set(changes).where('id', '=', id).execute();
}

/** The oldest run in `state` (creation order, then id). */
export function oldestRun(db: Executor, state: 'pending' | 'running') {
  return db
    .selectFrom('scheduler_run')
    .selectAll()
    .where('state', '=', state)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

/** A run's tallies and backup as stored now. */
export function runCounts(db: Executor, id: string) {
  return db
    .selectFrom('scheduler_run')
    .select(['rotated', 'failed', 'matched', 'backup_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Counts one more rotated or failed key of a run. */
export async function countRunKey(db: Executor, id: string, tally: 'rotated' | 'failed'): Promise<void> {
  await db
    .updateTable('scheduler_run')
    .set((eb) =>
      tally === 'rotated' ? { rotated: eb('rotated', '+', 1) } : { failed: eb('failed', '+', 1) },
    )
    .where('id', '=', id)
    .execute();
}

/** Finishes a run still open (pending or running); false when it was already finished. */
export async function closeRun(
  db: Executor,
  id: string,
  changes: Pick<SchedulerRunTable, 'state' | 'error' | 'finished_at'>,
): Promise<boolean> {
  const closed = await db
    .updateTable('scheduler_run')
    .set(changes)
    .where('id', '=', id)
    .where('state', 'in', ['pending', 'running'])
    .executeTakeFirst();
  return Number(closed.numUpdatedRows) === 1;
}

/** Ids of a task's finished runs after the newest `keep` (at most 1,000 at a time). */
export async function runsBeyond(db: Executor, taskId: string, keep: number): Promise<string[]> {
  const rows = await db
    .selectFrom('scheduler_run')
    .select('id')
    .where('task_id', '=', taskId)
    .where('state', 'in', ['success', 'failure'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1000)
    .execute();
  return rows.map((r) => r.id);
}

/** Deletes runs with their keys. */
export async function deleteRuns(db: Executor, ids: string[]): Promise<void> {
  await db.deleteFrom('scheduler_run_key').where('run_id', 'in', ids).execute();
  await db.deleteFrom('scheduler_run').where('id', 'in', ids).execute();
}

/** A page of a task's runs, newest first, with their total. */
export function pageOfRuns(db: Executor, taskId: string, page: PageQuery) {
  return pagedRows(db.selectFrom('scheduler_run').where('task_id', '=', taskId), page, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

// ---- a run's keys ----

export async function insertRunKeys(db: Executor, rows: SchedulerRunKeyTable[]): Promise<void> {
  await db.insertInto('scheduler_run_key').values(rows).execute();
}

/** The ids of a run's keys, in their order. */
export async function runKeyIds(db: Executor, runId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('scheduler_run_key')
    .select('key_id')
    .where('run_id', '=', runId)
    .orderBy('seq')
    .execute();
  return rows.map((k) => k.key_id);
}

/** The next `limit` keys of a run still pending, in their order. */
export function pendingKeys(db: Executor, runId: string, limit: number) {
  return db
    .selectFrom('scheduler_run_key')
    .selectAll()
    .where('run_id', '=', runId)
    .where('result', '=', 'pending')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/**
 * Settles one key of a run (`seq`), or every pending key (`seq` null), only while still
 * pending; answers how many it settled.
 */
export async function settleKeys(
  db: Executor,
  runId: string,
  seq: number | null,
  changes: Partial<Pick<SchedulerRunKeyTable, 'result' | 'version' | 'error' | 'at'>>,
): Promise<number> {
  let q = db.updateTable('scheduler_run_key').set(changes).where('run_id', '=', runId);
  if (seq !== null) q = q.where('seq', '=', seq);
  const settled = await q.where('result', '=', 'pending').executeTakeFirst();
  return Number(settled.numUpdatedRows);
}

/** The keys of one run of a task (none when the run is another task's), in order, at most 1,000. */
export function keysOfRun(db: Executor, taskId: string, runId: string) {
  return db
    .selectFrom('scheduler_run_key')
    .innerJoin('scheduler_run', 'scheduler_run.id', 'scheduler_run_key.run_id')
    .select([
      'scheduler_run_key.key_id',
      'scheduler_run_key.key_name',
      'scheduler_run_key.result',
      'scheduler_run_key.version',
      'scheduler_run_key.error',
    ])
    .where('scheduler_run_key.run_id', '=', runId)
    .where('scheduler_run.task_id', '=', taskId)
    .orderBy('scheduler_run_key.seq')
    .limit(1000)
    .execute();
}
