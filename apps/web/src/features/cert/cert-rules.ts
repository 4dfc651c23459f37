import type { Rule } from 'antd/es/form';
import { z } from 'zod';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { i18n } from '../../i18n/i18n';

/** The fields that name a certificate or a CA: its display name and its subject's parts. */
const nameFields: ReadonlySet<string> = new Set(['name', 'cn', 'o', 'ou', 'c', 'st', 'l']);

const oneEmail = z.email();

/**
 * The rules of one field of a certificate form (docs/console.md#fixed-texts): a refused name says
 * "Invalid name data format", a refused e-mail address "Invalid email format" (the list of
 * e-mail addresses is comma separated: each one is checked).
 */
export function certFieldRules(schema: z.ZodType | undefined, name: string, label: string): Rule[] {
  const rules = rulesFromSchema(
    fieldSchema(schema, name),
    label,
    nameFields.has(name) ? { invalid: i18n.t('common:validation.invalidName') } : {},
  );
  if (name === 'emails') rules.push(emailListRule());
  return rules;
}

/** Every comma-separated entry must be an e-mail address. */
export function emailListRule(): Rule {
  return {
    validator: (_rule, value: unknown) => {
      const entries =
        typeof value === 'string'
          ? value
              .split(',')
              .map((entry) => entry.trim())
              .filter(Boolean)
          : [];
      return entries.every((entry) => oneEmail.safeParse(entry).success)
        ? Promise.resolve()
        : Promise.reject(new Error(i18n.t('common:validation.invalidEmail')));
    },
  };
}
