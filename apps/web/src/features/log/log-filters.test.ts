import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { logFilterQuery, parseRange, presetOf, rangeValue, timeRange } from './log-filters';

const now = dayjs('2026-03-31T12:00:00.000Z');

describe('log time filter', () => {
  it('turns the rolling periods into a start that long before now, open at the end', () => {
    expect(timeRange('24h', now)).toEqual({ from: '2026-03-30T12:00:00.000Z' });
    // dayjs keeps the day within the shorter month (31 March - 1 month = 28 February).
    expect(timeRange('month', now)).toEqual({ from: '2026-02-28T12:00:00.000Z' });
    expect(timeRange('3months', now)).toEqual({ from: '2025-12-31T12:00:00.000Z' });
  });

  it('sends both ends of a custom range, and nothing for none or an unfinished one', () => {
    const value = rangeValue(dayjs('2026-01-01T00:00:00Z'), dayjs('2026-01-02T08:30:00Z'));
    expect(value).toBe('2026-01-01T00:00:00.000Z/2026-01-02T08:30:00.000Z');
    expect(timeRange(value, now)).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T08:30:00.000Z',
    });
    expect(presetOf(value)).toBe('custom');
    expect(timeRange('custom', now)).toEqual({});
    expect(timeRange(undefined, now)).toEqual({});
    expect(timeRange('yesterday', now)).toEqual({});
    expect(presetOf('yesterday')).toBeUndefined();
    expect(parseRange('2026-01-01/not-a-date')).toBeNull();
    expect(parseRange('a/b/c')).toBeNull();
  });

  it('keeps the filters the contract knows and drops unknown values', () => {
    expect(
      logFilterQuery(
        {
          time: '24h',
          severity: 'WARNING',
          result: 'maybe',
          source: 'kmip',
          action: 'key.',
          username: 'admin',
          ip: '10.0.0.1',
          q: 'billing',
          other: 'x',
        },
        now,
      ),
    ).toEqual({
      from: '2026-03-30T12:00:00.000Z',
      severity: 'WARNING',
      source: 'kmip',
      action: 'key.',
      username: 'admin',
      ip: '10.0.0.1',
      q: 'billing',
    });
  });
});
