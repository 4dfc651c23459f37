import type { Rule } from 'antd/es/form';
import type { z } from 'zod';
import { i18n } from '../i18n/i18n';

interface Unwrapped {
  inner: z.ZodType;
  optional: boolean;
}

type Wrapper = z.ZodType & { unwrap(): z.ZodType };

function unwrap(schema: z.ZodType): Unwrapped {
  let inner = schema;
  let optional = false;
  while (inner.type === 'optional' || inner.type === 'nullable' || inner.type === 'default') {
    optional = true;
    inner = (inner as Wrapper).unwrap();
  }
  return { inner, optional };
}

interface StringFacts {
  minLength: number | null;
  maxLength: number | null;
  format: string | null;
}

function stringFacts(schema: z.ZodType): StringFacts | null {
  if (schema.type !== 'string') return null;
  const facts = schema as unknown as Partial<StringFacts>;
  return {
    minLength: facts.minLength ?? null,
    maxLength: facts.maxLength ?? null,
    format: facts.format ?? null,
  };
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function isBlank(value: unknown): boolean {
  return isEmpty(value) || (typeof value === 'string' && value.trim() === '');
}

/** A value must be given: "<label> is required". */
export function requiredRule(label: string): Rule {
  return { required: true, message: i18n.t('common:validation.required', { label }) };
}

export interface SchemaRuleOptions {
  /** The message of a value the schema refuses (default "<label> is not valid", or the e-mail one). */
  invalid?: string;
}

/**
 * antd form rules derived from a field of a contract schema: required when the field
 * is neither optional nor defaulted and refuses an empty string, the maximum length,
 * and a final check by the schema itself; messages come from the catalogues.
 *
 * antd shows the message of every rule that fails, so each value fails one rule only:
 * an empty value is the required rule's (or allowed when optional), a value too long
 * is the length rule's, and the schema's check speaks only for the rest.
 */
export function rulesFromSchema(
  schema: z.ZodType | undefined,
  label: string,
  options: SchemaRuleOptions = {},
): Rule[] {
  if (!schema) return [];
  const { inner, optional } = unwrap(schema);
  const rules: Rule[] = [];
  const facts = stringFacts(inner);
  // A string field is required when the schema refuses an empty one (min length, email...).
  const required = Boolean(facts && !optional && !inner.safeParse('').success);
  if (required) {
    rules.push({
      required: true,
      whitespace: true,
      message: i18n.t('common:validation.required', { label }),
    });
  }
  const maxLength = facts?.maxLength ?? null;
  if (maxLength != null) {
    rules.push({
      max: maxLength,
      message: i18n.t('common:validation.maxLength', { label, max: maxLength }),
    });
  }
  const invalid =
    options.invalid ??
    (facts?.format === 'email'
      ? i18n.t('common:validation.invalidEmail')
      : i18n.t('common:validation.invalid', { label }));
  const othersSpeak = (value: unknown) =>
    (optional && isEmpty(value)) ||
    (required && isBlank(value)) ||
    (maxLength != null && typeof value === 'string' && value.length > maxLength);
  rules.push({
    validator: (_rule, value: unknown) =>
      othersSpeak(value) || schema.safeParse(value).success
        ? Promise.resolve()
        : Promise.reject(new Error(invalid)),
  });
  return rules;
}

/** The schema of one field of an object schema, if there is one. */
export function fieldSchema(schema: z.ZodType | undefined, name: string): z.ZodType | undefined {
  if (!schema || schema.type !== 'object') return undefined;
  const shape = (schema as z.ZodObject).shape as Record<string, z.ZodType | undefined>;
  return shape[name];
}
