import type { DataOf, api } from '@ksp/contracts';
import { i18n } from '../../i18n/i18n';

export type PasswordPolicyValues = Omit<DataOf<typeof api.passwordPolicy.get>, 'updated_at'>;

export type PolicyProblem =
  { kind: 'minAboveMax'; min: number; max: number } | { kind: 'minimaTooLong'; sum: number; max: number };

const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * What the server would refuse (the same checks it makes): the minimum length above
 * the maximum, or the required character classes not fitting in the maximum length.
 */
export function policyProblems(values: Partial<PasswordPolicyValues>): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const min = n(values.min_length);
  const max = n(values.max_length);
  if (min > max) problems.push({ kind: 'minAboveMax', min, max });
  const sum =
    n(values.min_lowercase) + n(values.min_uppercase) + n(values.min_digits) + n(values.min_special);
  if (sum > max) problems.push({ kind: 'minimaTooLong', sum, max });
  return problems;
}

export function problemText(problem: PolicyProblem): string {
  return problem.kind === 'minAboveMax'
    ? i18n.t('access:policy.minAboveMax', { min: problem.min, max: problem.max })
    : i18n.t('access:policy.minimaTooLong', { sum: problem.sum, max: problem.max });
}

/** The rules as users see them (the password-rules answer), from the values being edited. */
export function previewRules(values: Partial<PasswordPolicyValues>) {
  return {
    min_length: n(values.min_length),
    max_length: n(values.max_length),
    min_lowercase: n(values.min_lowercase),
    min_uppercase: n(values.min_uppercase),
    min_digits: n(values.min_digits),
    min_special: n(values.min_special),
  };
}
