import { describe, expect, it } from 'vitest';
import { aesGcmEncrypt } from './symmetric.js';
import { nonceBytes, randomBytes } from './random.js';

describe('randomness', () => {
  it('never hands out the same IV twice, across many refills of the nonce pool', () => {
    const key = randomBytes(32);
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(aesGcmEncrypt(key, Buffer.from('x')).iv.toString('hex'));
    expect(seen.size).toBe(5000);
  });

  it('gives nonces of the asked length, independent of each other', () => {
    const a = nonceBytes(16);
    const b = nonceBytes(16);
    expect(a).toHaveLength(16);
    expect(a.equals(b)).toBe(false);
    expect(nonceBytes(1000)).toHaveLength(1000); // larger than a pool slice: straight from the system
  });
});
