import { Cron } from 'croner';

/**
 * Five-field cron schedules (minute hour day-of-month month day-of-week), evaluated in UTC by
 * `croner` (docs/dependencies.md#server). Each field takes `*`, a number, a range `a-b`, a step (`*`,
 * `a-b` or `a` followed by `/n`), and comma-separated lists of those; months and weekdays also
 * take their English names (`jan`, `mon`); Sunday is 0 or 7. As in Vixie cron, when both day
 * fields are restricted a day matching either one is due. This file keeps the platform's
 * vocabulary (`CronSchedule`, `CronError`) so that jobs and the scheduler module never name
 * the library.
 */
export interface CronSchedule {
  readonly expression: string;
  /** The first due minute strictly after `after`. Throws `CronError` when none ever comes. */
  next(after: Date): Date;
}

export class CronError extends Error {}

const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const FIELD_LIMITS: readonly [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** Croner's message names the problem; the field is named here, in the words of the console. */
function explain(expression: string, texts: string[], message: string): CronError {
  for (const [i, text] of texts.entries()) {
    const [min, max] = FIELD_LIMITS[i]!;
    for (const number of text.match(/\d+/g) ?? []) {
      // A step (after '/') is not a value of the field.
      if (text.includes(`/${number}`)) continue;
      if (Number(number) < min || Number(number) > max) {
        return new CronError(`${FIELD_NAMES[i]}: '${number}' is not between ${min} and ${max}`);
      }
    }
  }
  const detail = message.replace(/^CronPattern:\s*/, '');
  return new CronError(`'${expression}' is not a schedule: ${detail}`);
}

export function parseCron(expression: string): CronSchedule {
  const texts = expression.trim().split(/\s+/);
  if (texts.length !== 5) {
    throw new CronError(
      `'${expression}' has ${texts.length} fields; a schedule has 5 (minute hour day month weekday)`,
    );
  }
  let cron: Cron;
  try {
    // No function given: croner only evaluates here and starts no timer; the jobs service keeps the time.
    cron = new Cron(texts.join(' '), { timezone: 'UTC', mode: '5-part', sloppyRanges: true });
  } catch (err) {
    throw explain(expression, texts, err instanceof Error ? err.message : String(err));
  }
  return {
    expression,
    next(after: Date): Date {
      const next = cron.nextRun(after);
      if (!next) throw new CronError(`'${expression}' never comes due`);
      return next;
    },
  };
}
