import dayjs, { type Dayjs } from 'dayjs';
import { clientLogEffects, clientLogLevels, logResults, logSeverities, logSources } from '@ksp/contracts';
import type { ClientLogListQuery, LogListQuery } from '../../api/log';

/** The time filter's choices: rolling periods up to now, or a range of the user's own. */
export const timePresets = ['24h', 'month', '3months', 'custom'] as const;
export type TimePreset = (typeof timePresets)[number];

/** The URL names of the page's filters (`time` holds a preset or a custom range). */
export const logFilterNames = [
  'time',
  'severity',
  'result',
  'source',
  'action',
  'username',
  'ip',
  'q',
] as const;

/** A custom range in the URL: an ISO 8601 interval, `<from>/<to>`. */
export function rangeValue(from: Dayjs, to: Dayjs): string {
  return `${from.toISOString()}/${to.toISOString()}`;
}

/** The two ends of a custom range value; null when the value is no valid range. */
export function parseRange(value: string | undefined): [Dayjs, Dayjs] | null {
  const [from, to, ...rest] = (value ?? '').split('/');
  if (!from || !to || rest.length > 0) return null;
  const start = dayjs(from);
  const end = dayjs(to);
  return start.isValid() && end.isValid() ? [start, end] : null;
}

/** Which choice of the time filter a value is (`custom` for a range, none for no filter). */
export function presetOf(value: string | undefined): TimePreset | undefined {
  if (!value) return undefined;
  const preset = timePresets.find((name) => name === value);
  if (preset) return preset;
  return parseRange(value) ? 'custom' : undefined;
}

/**
 * `from` and `to` of a time filter value. The rolling periods start that long before `now`
 * and stay open at the end, so that a record made after the list was read (or on a server
 * whose clock runs ahead of the browser's) is never left out; a custom range has both ends.
 */
export function timeRange(value: string | undefined, now: Dayjs = dayjs()): { from?: string; to?: string } {
  switch (value) {
    case '24h':
      return { from: now.subtract(24, 'hour').toISOString() };
    case 'month':
      return { from: now.subtract(1, 'month').toISOString() };
    case '3months':
      return { from: now.subtract(3, 'month').toISOString() };
    default: {
      const range = parseRange(value);
      return range ? { from: range[0].toISOString(), to: range[1].toISOString() } : {};
    }
  }
}

/**
 * The server's filters from URL filters: the time range, each choice that is one of its values,
 * each text as it is; the empty ones and values the contract does not know are left out.
 */
function serverFilters(
  filters: Record<string, string>,
  now: Dayjs,
  choices: Record<string, readonly string[]>,
  texts: readonly string[],
): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(timeRange(filters.time, now))) if (value) query[name] = value;
  for (const [name, values] of Object.entries(choices)) {
    const value = filters[name];
    if (value && values.includes(value)) query[name] = value;
  }
  for (const name of texts) if (filters[name]) query[name] = filters[name];
  return query;
}

type LogFilterQuery = Omit<LogListQuery, 'page' | 'page_size'>;

/** The server's filters from the page's URL filters. */
export function logFilterQuery(filters: Record<string, string>, now: Dayjs = dayjs()): LogFilterQuery {
  const choices = { severity: logSeverities, result: logResults, source: logSources };
  return serverFilters(filters, now, choices, ['action', 'username', 'ip', 'q']);
}

/** The URL names of the client records' filters. */
export const clientLogFilterNames = [
  'time',
  'level',
  'effect',
  'action',
  'client',
  'os_user',
  'ip',
  'q',
] as const;

type ClientLogFilterQuery = Omit<ClientLogListQuery, 'page' | 'page_size'>;

/** The server's filters of the client records from the tab's URL filters. */
export function clientLogFilterQuery(
  filters: Record<string, string>,
  now: Dayjs = dayjs(),
): ClientLogFilterQuery {
  const choices = { level: clientLogLevels, effect: clientLogEffects };
  const texts = ['action', 'client', 'os_user', 'ip', 'q'];
  return serverFilters(filters, now, choices, texts);
}
