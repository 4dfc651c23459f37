import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { PASSWORD_COST, clientHash, hashPassword, verifyPassword } from './password.js';
import { checkPassword, defaultPasswordPolicy } from './password-policy.js';

describe('password hashing', () => {
  it('derives the client hash of docs/console.md#login-encoding', () => {
    // base64(sha256("admin"))
    expect(clientHash('admin')).toBe('jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=');
  });

  it('stores a salted scrypt hash that verifies only the same password', async () => {
    const stored = await hashPassword(clientHash('Pass-word-1'));
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain(clientHash('Pass-word-1'));
    expect(await verifyPassword(clientHash('Pass-word-1'), stored)).toBe(true);
    expect(await verifyPassword(clientHash('Pass-word-2'), stored)).toBe(false);
    expect(await verifyPassword(clientHash('Pass-word-1'), null)).toBe(false);
    expect(await hashPassword(clientHash('Pass-word-1'))).not.toBe(stored);
  });

  it('stores at N = 2^15 unless a test server asks for less, and only a test server may', () => {
    expect(PASSWORD_COST).toBe(15);
    expect(loadConfig({}).passwordCost).toBe(15);
    expect(() => loadConfig({ KSP_TEST_PASSWORD_COST: '4' })).toThrow(
      /KSP_TEST_PASSWORD_COST is for tests only/,
    );
    expect(() => loadConfig({ KSP_TEST_PASSWORD_COST: '4', NODE_ENV: 'production' })).toThrow(
      /NODE_ENV=test/,
    );
    expect(loadConfig({ KSP_TEST_PASSWORD_COST: '4', NODE_ENV: 'test' }).passwordCost).toBe(4);
    expect(() => loadConfig({ KSP_TEST_PASSWORD_COST: '16', NODE_ENV: 'test' })).toThrow(
      /KSP_TEST_PASSWORD_COST/,
    );
  });

  it('verifies a hash at the cost it was stored with, whatever the cost new hashes get', async () => {
    const cheap = await hashPassword(clientHash('Pass-word-1'), 4);
    expect(cheap).toMatch(/^scrypt\$16\$8\$1\$/);
    expect(await verifyPassword(clientHash('Pass-word-1'), cheap)).toBe(true);
    expect(await verifyPassword(clientHash('Pass-word-2'), cheap)).toBe(false);
    const stored = await hashPassword(clientHash('Pass-word-1'));
    expect(await verifyPassword(clientHash('Pass-word-1'), stored, 4)).toBe(true);
    expect(await verifyPassword(clientHash('Pass-word-1'), null, 4)).toBe(false);
  });
});

describe('password policy', () => {
  const rules = { ...defaultPasswordPolicy, min_special: 1 };
  it('lists every rule a password breaks', () => {
    expect(checkPassword('Abcdef1!', rules)).toEqual([]);
    expect(checkPassword('abc', rules).map((b) => b.rule)).toEqual([
      'min_length',
      'min_uppercase',
      'min_digits',
      'min_special',
    ]);
    expect(checkPassword('A'.repeat(65) + 'a1!', rules).map((b) => b.rule)).toEqual(['max_length']);
  });
  it('counts letters beyond ASCII', () => {
    expect(checkPassword('Ébcdéf1!', rules)).toEqual([]);
    expect(checkPassword('密码密码密码Aa1!', rules)).toEqual([]);
  });
});
