import type { PasswordPolicyTable } from '../db/schema.js';

export type PasswordRules = Pick<
  PasswordPolicyTable,
  'min_length' | 'max_length' | 'min_lowercase' | 'min_uppercase' | 'min_digits' | 'min_special'
>;

export const defaultPasswordPolicy: Omit<PasswordPolicyTable, 'id' | 'updated_at'> = {
  min_length: 8,
  max_length: 64,
  min_lowercase: 1,
  min_uppercase: 1,
  min_digits: 1,
  min_special: 0,
  lockout_disabled: 0,
  max_failed_attempts: 5,
  expiry_days: 0,
  min_change_days: 0,
};

export type RuleBroken =
  | { rule: 'min_length' | 'max_length'; limit: number }
  | { rule: 'min_lowercase' | 'min_uppercase' | 'min_digits' | 'min_special'; limit: number };

/** Lists every rule the password breaks (empty when it meets them all). */
export function checkPassword(password: string, rules: PasswordRules): RuleBroken[] {
  const chars = [...password];
  const count = (re: RegExp) => chars.filter((c) => re.test(c)).length;
  const broken: RuleBroken[] = [];
  if (chars.length < rules.min_length) broken.push({ rule: 'min_length', limit: rules.min_length });
  if (rules.max_length > 0 && chars.length > rules.max_length)
    broken.push({ rule: 'max_length', limit: rules.max_length });
  if (count(/\p{Ll}/u) < rules.min_lowercase)
    broken.push({ rule: 'min_lowercase', limit: rules.min_lowercase });
  if (count(/\p{Lu}/u) < rules.min_uppercase)
    broken.push({ rule: 'min_uppercase', limit: rules.min_uppercase });
  if (count(/\p{Nd}/u) < rules.min_digits) broken.push({ rule: 'min_digits', limit: rules.min_digits });
  if (count(/[^\p{L}\p{Nd}]/u) < rules.min_special)
    broken.push({ rule: 'min_special', limit: rules.min_special });
  return broken;
}
