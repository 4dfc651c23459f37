import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LDT_QOS, ProfileSettingsInput, QosSchedule } from '@ksp/contracts';
import { limitsAt, limitsOf } from './schema-limits';

describe('the limits a contract schema declares', () => {
  it('reads a number range, a length and a pattern under their wrappers', () => {
    expect(limitsOf(z.number().int().min(1).max(60).default(30))).toEqual({ min: 1, max: 60 });
    expect(limitsOf(z.number().int().positive().lt(10).nullable())).toEqual({ min: 1, max: 9 });
    expect(limitsOf(z.string().trim().min(1).max(64).optional())).toEqual({ min: 1, max: 64 });
    expect(limitsOf(z.array(z.string()).max(20).default([]))).toEqual({ max: 20 });
    expect(limitsOf(z.string().regex(/^\d+$/)).pattern?.test('12')).toBe(true);
    expect(limitsOf(z.boolean())).toEqual({});
  });

  it('follows a path of objects, and refuses a field the contract lacks', () => {
    expect(limitsAt(ProfileSettingsInput, ['ldt_qos', 'ldt_qos_status_check_rate'])).toEqual({
      min: LDT_QOS.status_check_rate_s.min,
      max: LDT_QOS.status_check_rate_s.max,
    });
    expect(limitsAt(QosSchedule, ['start_time']).pattern?.test('23:59')).toBe(true);
    expect(limitsAt(QosSchedule, ['start_time']).pattern?.test('24:00')).toBe(false);
    expect(() => limitsAt(ProfileSettingsInput, ['file_settings', 'nothing'])).toThrow(
      'file_settings.nothing',
    );
  });
});
