import { describe, expect, it } from 'vitest';
import {
  forgetSetupCode,
  isWellFormedSetupCode,
  normalizeSetupCode,
  rememberSetupCode,
  rememberedSetupCode,
  withSetupCode,
} from './setup-code';

const CODE = '0A1B-2C3D-4E5F-6071-8293-A4B5-C6D7-E8F9';

describe('first-run setup code', () => {
  it('accepts the code typed loosely, and nothing else', () => {
    expect(normalizeSetupCode(' 0a1b 2c3d-4e5f ')).toBe('0A1B2C3D4E5F');
    expect(isWellFormedSetupCode(CODE)).toBe(true);
    expect(isWellFormedSetupCode(CODE.toLowerCase().replaceAll('-', ' '))).toBe(true);
    expect(isWellFormedSetupCode(CODE.slice(0, -1))).toBe(false);
    expect(isWellFormedSetupCode(CODE.replace('0', 'G'))).toBe(false);
    expect(isWellFormedSetupCode('')).toBe(false);
  });

  it('is sent only when the server requires one', () => {
    expect(withSetupCode({ total: 3 }, false, CODE)).toEqual({ total: 3 });
    expect(withSetupCode({ total: 3 }, true, CODE)).toEqual({
      total: 3,
      setup_code: '0A1B2C3D4E5F60718293A4B5C6D7E8F9',
    });
  });

  it('is kept for the tab between initialization and activation, then forgotten', () => {
    const values = new Map<string, string>();
    const storage = {
      getItem: (k: string) => values.get(k) ?? null,
      setItem: (k: string, v: string) => void values.set(k, v),
      removeItem: (k: string) => void values.delete(k),
    };
    expect(rememberedSetupCode(storage)).toBe('');
    rememberSetupCode(CODE, storage);
    expect(rememberedSetupCode(storage)).toBe('0A1B2C3D4E5F60718293A4B5C6D7E8F9');
    forgetSetupCode(storage);
    expect(rememberedSetupCode(storage)).toBe('');
  });
});
