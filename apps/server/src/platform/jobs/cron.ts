/**
 * Five-field cron schedules (minute hour day-of-month month day-of-week), evaluated in UTC.
 * Each field takes `*`, a number, a range `a-b`, a step (`*`, `a-b` or `a` followed by `/n`),
 * and comma-separated lists of those. Months and weekdays also take their English names
 * (`jan`, `mon`); Sunday is 0 or 7.
 * As in Vixie cron, when both day fields are restricted a day matching either one is due.
 */
export interface CronSchedule {
  readonly expression: string;
  /** The first due minute strictly after `after`. */
  next(after: Date): Date;
}

export class CronError extends Error {}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

function parseValue(text: string, spec: FieldSpec): number {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  const value =
    named >= 0 ? named + (spec.name === 'month' ? 1 : 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < spec.min || value > spec.max) {
    throw new CronError(`${spec.name}: '${text}' is not between ${spec.min} and ${spec.max}`);
  }
  return value;
}

/** The values one field allows, and whether it was `*` (unrestricted). */
function parseField(text: string, spec: FieldSpec): { values: Set<number>; any: boolean } {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (range === undefined || range === '' || extra !== undefined) {
      throw new CronError(`${spec.name}: '${part}' is not a value, range or step`);
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!/^\d*$/.test(stepText ?? '') || !Number.isInteger(step) || step < 1) {
      throw new CronError(`${spec.name}: step '${stepText}' must be a positive number`);
    }
    let from: number;
    let to: number;
    if (range === '*') {
      from = spec.min;
      to = spec.max;
    } else if (range.includes('-')) {
      const [a, b] = range.split('-');
      from = parseValue(a ?? '', spec);
      to = parseValue(b ?? '', spec);
      if (from > to) throw new CronError(`${spec.name}: range '${range}' runs backwards`);
    } else {
      from = parseValue(range, spec);
      // `5/15` means from 5 to the end, every 15.
      to = stepText === undefined ? from : spec.max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return { values, any: text === '*' };
}

export function parseCron(expression: string): CronSchedule {
  const texts = expression.trim().split(/\s+/);
  if (texts.length !== 5) {
    throw new CronError(
      `'${expression}' has ${texts.length} fields; a schedule has 5 (minute hour day month weekday)`,
    );
  }
  const [minute, hour, dom, month, dow] = texts.map((t, i) => parseField(t, FIELDS[i]!)) as [
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
  ];
  if (dow.values.delete(7)) dow.values.add(0);

  const dayMatches = (d: Date): boolean => {
    const inMonth = dom.values.has(d.getUTCDate());
    const inWeek = dow.values.has(d.getUTCDay());
    if (dom.any || dow.any) return inMonth && inWeek;
    return inMonth || inWeek;
  };

  return {
    expression,
    next(after: Date): Date {
      const t = new Date(after.getTime());
      t.setUTCSeconds(0, 0);
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      // Five years covers every leap-day schedule; beyond it the schedule never matches (30 feb).
      const limit = after.getTime() + 5 * 366 * 24 * 3600 * 1000;
      while (t.getTime() <= limit) {
        if (!month.values.has(t.getUTCMonth() + 1)) {
          t.setUTCMonth(t.getUTCMonth() + 1, 1);
          t.setUTCHours(0, 0);
        } else if (!dayMatches(t)) {
          t.setUTCDate(t.getUTCDate() + 1);
          t.setUTCHours(0, 0);
        } else if (!hour.values.has(t.getUTCHours())) {
          t.setUTCHours(t.getUTCHours() + 1, 0);
        } else if (!minute.values.has(t.getUTCMinutes())) {
          t.setUTCMinutes(t.getUTCMinutes() + 1);
        } else {
          return t;
        }
      }
      throw new CronError(`'${expression}' never comes due`);
    },
  };
}
