import { describe, expect, it } from 'vitest';
import type { RuleObject } from 'antd/es/form';
import { expiryRule, FOREVER, isForever } from './expiry-input';

const NOW = Date.parse('2026-06-01T12:00:00Z');

function check(value: unknown, unchanged?: string): Promise<void> {
  const rule = expiryRule(unchanged, () => NOW) as RuleObject;
  return rule.validator!(rule, value, () => undefined) as Promise<void>;
}

describe('the registration token expiry', () => {
  it('"-" means forever', () => {
    expect(FOREVER).toBe('-');
    expect(isForever('-')).toBe(true);
    expect(isForever(undefined)).toBe(true);
    expect(isForever('2026-07-01T00:00:00.000Z')).toBe(false);
  });

  it('accepts forever or a future date-time; a past one only when it is the stored one', async () => {
    await expect(check('-')).resolves.toBeUndefined();
    await expect(check('2026-06-02T00:00:00.000Z')).resolves.toBeUndefined();
    await expect(check('2026-05-01T00:00:00.000Z')).rejects.toThrow('Choose a date and time in the future');
    await expect(check('')).rejects.toThrow('Choose a date and time in the future');
    await expect(check('2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z')).resolves.toBeUndefined();
  });
});
