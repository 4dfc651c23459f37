import { describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { bodyOf, type SchedulerFormValues } from './scheduler-form';

const base: SchedulerFormValues = {
  name: 'weekly',
  mode: 'interval',
  period: 'week',
  weekdays: [1, 5],
  hour: 4,
  minute: 30,
  enabled: true,
};

describe('the scheduler form', () => {
  it('sends the interval the builder shows, dates as UTC, and only the query conditions given', () => {
    const body = bodyOf({
      ...base,
      start: '2026-04-01T00:00',
      end: '',
      name_pattern: ' prod-* ',
      labels: 'env=prod\n team = payments \n\n',
      min_age_days: 30,
    });
    expect(body).toEqual({
      name: 'weekly',
      description: '',
      type: 'key_rotation',
      interval: { period: 'week', hour: 4, minute: 30, weekdays: [1, 5] },
      start_at: '2026-04-01T00:00:00.000Z',
      end_at: null,
      enabled: true,
      query: { name_pattern: 'prod-*', labels: { env: 'prod', team: 'payments' }, min_age_days: 30 },
    });
    // What the server's contract accepts.
    expect(api.scheduler.create.body?.safeParse(body).success).toBe(true);
  });

  it('sends a typed cron as it is, and an empty query for "all keys"', () => {
    const body = bodyOf({ ...base, mode: 'cron', cron: '0 3 * * mon', min_age_days: null });
    expect(body).toMatchObject({ cron: '0 3 * * mon', query: {} });
    expect(body).not.toHaveProperty('interval');
  });

  it('keeps only the fields of the chosen period', () => {
    expect(bodyOf({ ...base, period: 'year', month: 6, day_of_month: 1 }).interval).toEqual({
      period: 'year',
      hour: 4,
      minute: 30,
      month: 6,
      day_of_month: 1,
    });
    expect(bodyOf({ ...base, period: 'day', month: 6, day_of_month: 1 }).interval).toEqual({
      period: 'day',
      hour: 4,
      minute: 30,
    });
  });
});
