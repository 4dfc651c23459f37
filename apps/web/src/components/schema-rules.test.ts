import { describe, expect, it } from 'vitest';
import type { Rule, RuleObject } from 'antd/es/form';
import { api } from '@ksp/contracts';
import { allMessages } from '../test-rules';
import { newPasswordRules } from './password-fields';
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

  it('gives one message per value, as antd shows every failing rule', async () => {
    const username = fieldSchema(api.user.create.body, 'username');
    const rules = rulesFromSchema(username, 'Username');
    expect(await allMessages(rules, undefined)).toEqual(['Please enter Username']);
    expect(await allMessages(rules, '')).toEqual(['Please enter Username']);
    expect(await allMessages(rules, '   ')).toEqual(['Please enter Username']);
    expect(await allMessages(rules, 'x'.repeat(200))).toHaveLength(1);
    const key = rulesFromSchema(fieldSchema(body, 'key'), 'Key');
    expect(await allMessages(key, '')).toEqual(['Please enter Key']);
    expect(await allMessages(key, 'x'.repeat(65))).toEqual(['Key must be at most 64 characters']);
    expect(await allMessages(key, '9lives')).toEqual(['Key is not valid']);
    const email = rulesFromSchema(fieldSchema(api.system.activate.body, 'email'), 'Email');
    expect(await allMessages(email, '')).toEqual(['Please enter Email']);
    expect(await allMessages(email, 'nope')).toEqual(['Invalid email format']);
  });

  it('says one thing about a new password at a time', async () => {
    const policy = {
      min_length: 8,
      max_length: 16,
      min_lowercase: 1,
      min_uppercase: 1,
      min_digits: 1,
      min_special: 0,
    };
    const rules = newPasswordRules(policy);
    expect(await allMessages(rules, '')).toEqual(['Please enter your password']);
    expect(await allMessages(rules, 'abc')).toEqual(['Password cannot be less than 5 characters']);
    expect(await allMessages(rules, 'abcdef')).toEqual(['Password does not meet the rules!']);
    expect(await allMessages(rules, 'Abcdefg1')).toEqual([]);
  });

  it('takes the message of a refused value from the caller', async () => {
    const rules = rulesFromSchema(fieldSchema(body, 'key'), 'Key', { invalid: 'Invalid name data format' });
    expect(await allMessages(rules, '9lives')).toEqual(['Invalid name data format']);
  });

  it('gives nothing without a schema', () => {
    expect(rulesFromSchema(undefined, 'x')).toEqual([]);
  });
});
