import { describe, expect, it } from 'vitest';
import { CronError, parseCron } from './cron.js';

const at = (iso: string) => new Date(iso);
const nextOf = (expression: string, after: string) => parseCron(expression).next(at(after)).toISOString();

describe('cron schedules', () => {
  it('finds the next due minute, strictly after the given time', () => {
    expect(nextOf('* * * * *', '2026-03-01T10:15:30.000Z')).toBe('2026-03-01T10:16:00.000Z');
    expect(nextOf('0 3 * * *', '2026-03-01T02:59:00.000Z')).toBe('2026-03-01T03:00:00.000Z');
    expect(nextOf('0 3 * * *', '2026-03-01T03:00:00.000Z')).toBe('2026-03-02T03:00:00.000Z');
    expect(nextOf('*/15 * * * *', '2026-03-01T10:16:00.000Z')).toBe('2026-03-01T10:30:00.000Z');
    expect(nextOf('5/20 8-9 * * *', '2026-03-01T08:46:00.000Z')).toBe('2026-03-01T09:05:00.000Z');
    expect(nextOf('0 0 1 jan,jul *', '2026-03-01T00:00:00.000Z')).toBe('2026-07-01T00:00:00.000Z');
  });

  it('crosses months, years and leap days', () => {
    expect(nextOf('30 23 31 * *', '2026-04-01T00:00:00.000Z')).toBe('2026-05-31T23:30:00.000Z');
    expect(nextOf('0 0 1 1 *', '2026-06-01T00:00:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(nextOf('0 12 29 2 *', '2026-03-01T00:00:00.000Z')).toBe('2028-02-29T12:00:00.000Z');
  });

  it('reads weekdays by number or name, Sunday as 0 or 7, and either day field when both are set', () => {
    // 2026-03-01 is a Sunday.
    expect(nextOf('0 9 * * mon-fri', '2026-02-28T10:00:00.000Z')).toBe('2026-03-02T09:00:00.000Z');
    expect(nextOf('0 9 * * 7', '2026-02-28T10:00:00.000Z')).toBe('2026-03-01T09:00:00.000Z');
    expect(nextOf('0 9 * * 0', '2026-02-28T10:00:00.000Z')).toBe('2026-03-01T09:00:00.000Z');
    // The 15th or any Friday, whichever comes first.
    expect(nextOf('0 0 15 * fri', '2026-03-01T00:00:00.000Z')).toBe('2026-03-06T00:00:00.000Z');
    expect(nextOf('0 0 15 * fri', '2026-03-13T01:00:00.000Z')).toBe('2026-03-15T00:00:00.000Z');
  });

  it('refuses what is not a schedule, naming the field', () => {
    expect(() => parseCron('* * * *')).toThrow(/has 4 fields/);
    expect(() => parseCron('60 * * * *')).toThrow(/minute: '60' is not between 0 and 59/);
    expect(() => parseCron('* 5-2 * * *')).toThrow(/larger than/);
    expect(() => parseCron('*/0 * * * *')).toThrow(/stepping: 0/);
    expect(() => parseCron('* * * foo *')).toThrow(CronError);
    expect(() => parseCron('0 0 30 2 *').next(at('2026-01-01T00:00:00.000Z'))).toThrow(/never comes due/);
  });
});
