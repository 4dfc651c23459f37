import { v7 as uuidv7 } from 'uuid';
import {
  KeyRotationQuery,
  type Language,
  type SchedulerInterval,
  type SchedulerRun,
  type SchedulerTask,
} from '@ksp/contracts';
import { nonceBytes } from '../../platform/crypto/random.js';
import type { SchedulerRunTable, SchedulerTaskTable } from '../../platform/db/schema.js';
import { localized } from '../../platform/stored-message.js';

export const iso = (d: Date) => d.toISOString();
export const newId = () => uuidv7({ random: nonceBytes(16) });

/** A task as the calls answer it, its last error in `lang`. */
export function toTask(row: SchedulerTaskTable, lang: Language = 'en'): SchedulerTask {
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

/** A run as the calls answer it, its error in `lang`. */
export function toRun(row: SchedulerRunTable, lang: Language = 'en'): SchedulerRun {
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

/** A queued run of `task`, asked for by `by` at `at`. */
export function newRun(
  task: SchedulerTaskTable,
  trigger: SchedulerRun['trigger'],
  by: string,
  at: Date,
): SchedulerRunTable {
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
    created_at: iso(at),
    started_at: null,
    finished_at: null,
  };
}
