import { describe, expect, it } from 'vitest';
import {
  actionValid,
  createBody,
  formValuesOf,
  intervalInBounds,
  splitInterval,
  updateBody,
} from './alarm-values';

describe('alarm rule form values', () => {
  it('shows an interval in the largest unit that divides it', () => {
    expect(splitInterval(600)).toEqual({ value: 10, unit: 'minutes' });
    expect(splitInterval(90)).toEqual({ value: 90, unit: 'seconds' });
    expect(splitInterval(7 * 86_400)).toEqual({ value: 7, unit: 'days' });
    expect(splitInterval(7200)).toEqual({ value: 2, unit: 'hours' });
  });

  it('bounds the interval to 10 seconds … 7 days', () => {
    expect(intervalInBounds(9)).toBe(false);
    expect(intervalInBounds(10)).toBe(true);
    expect(intervalInBounds(7 * 86_400)).toBe(true);
    expect(intervalInBounds(7 * 86_400 + 1)).toBe(false);
  });

  it('takes an action, an area ending with ".", or nothing', () => {
    for (const ok of ['', 'user.login', 'key.', 'cert.ca.', undefined]) expect(actionValid(ok)).toBe(true);
    for (const bad of ['user login', 'key.*', 'KEY.create', '.key']) expect(actionValid(bad)).toBe(false);
  });

  it('sends only what applies to the stream, and clears emptied conditions on update', () => {
    const values = {
      ...formValuesOf(),
      name: ' failures ',
      action: 'user.login',
      result: 'failure' as const,
      min_severity: 'WARNING' as const,
      interval_value: 1,
      interval_unit: 'minutes' as const,
    };
    expect(createBody(values)).toEqual({
      name: 'failures',
      enabled: true,
      stream: 'server',
      action: 'user.login',
      result: 'failure',
      min_severity: 'WARNING',
      threshold: 5,
      interval_seconds: 60,
      severity: 'WARNING',
    });
    const client = createBody({ ...values, stream: 'client' });
    expect(client).not.toHaveProperty('result');
    expect(client).not.toHaveProperty('min_severity');
    expect(updateBody('id-1', { ...values, action: '', result: null })).toMatchObject({
      id: 'id-1',
      action: null,
      result: null,
      min_severity: 'WARNING',
    });
  });
});
