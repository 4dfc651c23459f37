import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { checkPassword, meetsPasswordRules, PasswordRuleList, type PasswordRules } from './password-rules';

const rules: PasswordRules = {
  min_length: 8,
  max_length: 16,
  min_lowercase: 1,
  min_uppercase: 1,
  min_digits: 2,
  min_special: 1,
};

describe('password rules', () => {
  it('checks each rule of the policy', () => {
    expect(checkPassword('abc', rules)).toEqual([
      { id: 'length', ok: false },
      { id: 'lowercase', ok: true },
      { id: 'uppercase', ok: false },
      { id: 'digits', ok: false },
      { id: 'special', ok: false },
    ]);
    expect(meetsPasswordRules('Abcdef12!', rules)).toBe(true);
    expect(meetsPasswordRules('Abcdef1!x', rules)).toBe(false);
    expect(meetsPasswordRules('Abcdef12!Abcdef12!', rules)).toBe(false);
  });

  it('leaves out rules with a minimum of 0', () => {
    const loose = { ...rules, min_lowercase: 0, min_uppercase: 0, min_digits: 0, min_special: 0 };
    expect(checkPassword('aaaaaaaa', loose)).toEqual([{ id: 'length', ok: true }]);
  });

  it('lists the rules, marking the ones met', () => {
    render(<PasswordRuleList rules={rules} value="Abcdefgh" />);
    expect(screen.getByText(/8 to 16 characters/)).toBeTruthy();
    const items = screen.getByTestId('password-rules').querySelectorAll('li');
    expect([...items].map((li) => [li.dataset.rule, li.dataset.ok])).toEqual([
      ['length', 'true'],
      ['lowercase', 'true'],
      ['uppercase', 'true'],
      ['digits', 'false'],
      ['special', 'false'],
    ]);
  });
});
