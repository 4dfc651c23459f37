import { intervalToCron, type SchedulerInterval } from '@ksp/contracts';
import { CronError, parseCron } from '../../platform/jobs/cron.js';
import { invalid } from '../../platform/errors.js';

/** When a task runs: its cron (UTC) within an optional start and end. */
export interface TaskSchedule {
  cron: string;
  start_at: string | null;
  end_at: string | null;
}

/** The cron a task is given (typed in, or compiled from the interval builder); refuses what is not one. */
export function cronOf(input: {
  cron?: string | undefined;
  interval?: SchedulerInterval | undefined;
}): string {
  if (input.cron !== undefined && input.interval !== undefined) throw invalid('scheduler.cronOrInterval');
  let cron: string;
  if (input.interval !== undefined) {
    const compiled = intervalToCron(input.interval);
    if ('missing' in compiled) {
      throw invalid('scheduler.intervalIncomplete', {
        period: input.interval.period,
        field: compiled.missing,
      });
    }
    cron = compiled.cron;
  } else if (input.cron !== undefined) {
    cron = input.cron.trim().split(/\s+/).join(' ');
  } else {
    throw invalid('scheduler.noSchedule');
  }
  try {
    parseCron(cron);
  } catch (err) {
    if (err instanceof CronError) throw invalid('scheduler.badCron', { reason: err.message });
    throw err;
  }
  return cron;
}

/**
 * The first slot strictly after `after` within the task's window, or null when none is left
 * (past the end date, or a schedule that never comes due).
 */
export function nextSlot(schedule: TaskSchedule, after: Date): Date | null {
  const start = schedule.start_at ? new Date(schedule.start_at) : null;
  // A slot at the start time itself counts: look from just before it.
  const from = start && start.getTime() - 1 > after.getTime() ? new Date(start.getTime() - 1) : after;
  let next: Date;
  try {
    next = parseCron(schedule.cron).next(from);
  } catch (err) {
    if (err instanceof CronError) return null;
    throw err;
  }
  if (schedule.end_at && next.getTime() > new Date(schedule.end_at).getTime()) return null;
  return next;
}

/** Refuses a window that ends before it starts, or a schedule with no slot inside its window. */
export function checkWindow(schedule: TaskSchedule, now: Date): void {
  const { start_at: start, end_at: end } = schedule;
  if (start && end && new Date(end).getTime() <= new Date(start).getTime()) {
    throw invalid('scheduler.endBeforeStart', { start, end });
  }
  if (nextSlot(schedule, now) === null) {
    throw invalid('scheduler.neverDue', { cron: schedule.cron });
  }
}

/** The stored next run of a task (ISO time): its next slot after `now`, or null when disabled or none is left. */
export function nextRunAt(schedule: TaskSchedule, enabled: boolean, now: Date): string | null {
  if (!enabled) return null;
  const next = nextSlot(schedule, now);
  return next ? next.toISOString() : null;
}
