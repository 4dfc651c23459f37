import { describe, expect, it } from 'vitest';
import type { Rule, RuleObject } from 'antd/es/form';
import { api } from '@ksp/contracts';
import { fieldSchema, rulesFromSchema } from './schema-rules';

async function validate(rules: Rule[], value: unknown): Promise<string | null> {
  for (const rule of rules) {
    const object = rule as RuleObject;
    if (
      object.required &&
      (value === undefined || value === '' || (typeof value === 'string' && !value.trim()))
    ) {
      return String(object.message as string);
    }
    if (object.max !== undefined && typeof value === 'string' && value.length > object.max)
      return String(object.message as string);
    if (object.validator) {
      try {
        await object.validator(object, value, () => undefined);
      } catch (error) {
        return (error as Error).message;
      }
    }
  }
  return null;
}

describe('rules from the contract schema', () => {
  const body = api.config.add.body;

  it('finds the field schema', () => {
    expect(fieldSchema(body, 'key')).toBeDefined();
    expect(fieldSchema(body, 'nope')).toBeUndefined();
    expect(fieldSchema(undefined, 'key')).toBeUndefined();
  });

  it('makes a required field with its length and pattern', async () => {
    const rules = rulesFromSchema(fieldSchema(body, 'key'), 'Key');
    expect(rules.some((rule) => (rule as RuleObject).required)).toBe(true);
    expect(rules.some((rule) => (rule as RuleObject).max === 64)).toBe(true);
    expect(await validate(rules, '')).toBe('Please enter Key');
    expect(await validate(rules, '9lives')).toBe('Key is not valid');
    expect(await validate(rules, 'x'.repeat(65))).toBe('Key must be at most 64 characters');
    expect(await validate(rules, 'session.timeout')).toBeNull();
  });

  it('does not require defaulted or optional fields', async () => {
    const rules = rulesFromSchema(fieldSchema(body, 'description'), 'Description');
    expect(rules.some((rule) => (rule as RuleObject).required)).toBe(false);
    expect(await validate(rules, undefined)).toBeNull();
    expect(await validate(rules, 'x'.repeat(257))).toBe('Description must be at most 256 characters');
  });

  it('says "Invalid email format" for an email field', async () => {
    const rules = rulesFromSchema(fieldSchema(api.system.activate.body, 'email'), 'Email');
    expect(await validate(rules, 'not-an-email')).toBe('Invalid email format');
    expect(await validate(rules, 'ops@example.com')).toBeNull();
  });

  it('gives nothing without a schema', () => {
    expect(rulesFromSchema(undefined, 'x')).toEqual([]);
  });
});
