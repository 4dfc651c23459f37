import { describe, expect, it } from 'vitest';
import { policyProblems, previewRules, problemText } from './policy-checks';

const policy = {
  min_length: 8,
  max_length: 64,
  min_lowercase: 1,
  min_uppercase: 1,
  min_digits: 1,
  min_special: 0,
  lockout_disabled: false,
  max_failed_attempts: 5,
  expiry_days: 0,
  min_change_days: 0,
};

describe('the password policy form checks', () => {
  it('accepts a consistent policy (limits included)', () => {
    expect(policyProblems(policy)).toEqual([]);
    expect(policyProblems({ ...policy, min_length: 64 })).toEqual([]);
    expect(
      policyProblems({
        ...policy,
        max_length: 8,
        min_lowercase: 2,
        min_uppercase: 2,
        min_digits: 2,
        min_special: 2,
      }),
    ).toEqual([]);
  });

  it('refuses a minimum above the maximum', () => {
    expect(policyProblems({ ...policy, min_length: 70 })).toEqual([
      { kind: 'minAboveMax', min: 70, max: 64 },
    ]);
  });

  it('refuses minima that do not fit in the maximum length', () => {
    expect(
      policyProblems({ ...policy, min_length: 4, max_length: 6, min_digits: 4, min_special: 2 }),
    ).toEqual([{ kind: 'minimaTooLong', sum: 8, max: 6 }]);
  });

  it('reports both, in words, and treats emptied fields as 0', () => {
    const problems = policyProblems({ ...policy, min_length: 10, max_length: 2 });
    expect(problems.map(problemText)).toEqual([
      'The minimum length (10) cannot exceed the maximum length (2)',
      'The required lowercase, uppercase, digit and special characters (3) exceed the maximum length (2)',
    ]);
    expect(policyProblems({ min_length: undefined, max_length: 5 })).toEqual([]);
  });

  it('previews the rules users are shown', () => {
    expect(previewRules({ ...policy, min_special: 2 })).toEqual({
      min_length: 8,
      max_length: 64,
      min_lowercase: 1,
      min_uppercase: 1,
      min_digits: 1,
      min_special: 2,
    });
  });
});
