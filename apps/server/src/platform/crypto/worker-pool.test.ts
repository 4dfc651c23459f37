import { describe, expect, it } from 'vitest';
import { CryptoError } from './crypto-error.js';
import { pqcVerify } from './post-quantum.js';
import { createCryptoPool, isHeavy } from './worker-pool.js';

describe('the post-quantum worker pool', () => {
  it('generates and signs in worker threads with the same results as inline code', async () => {
    const pool = createCryptoPool(2);
    try {
      const [a, b] = await Promise.all([pool.generate('ML-DSA-44'), pool.generate('ML-DSA-44')]);
      expect(a.material).toHaveLength(2560);
      expect(a.publicKey).toHaveLength(1312);
      expect(a.material.equals(b.material)).toBe(false);
      const data = Buffer.from('signed off the event loop');
      const signature = await pool.sign('ML-DSA-44', a.material, data);
      expect(pqcVerify('ML-DSA-44', a.publicKey!, data, signature)).toBe(true);
      expect(pqcVerify('ML-DSA-44', b.publicKey!, data, signature)).toBe(false);
      await expect(pool.sign('EC-P256', a.material, data)).rejects.toThrow(/not signed in a worker/);
      // With a context, only a verifier given the same context accepts the signature.
      const context = Buffer.from('ctx');
      const withContext = await pool.sign('ML-DSA-44', a.material, data, context);
      expect(pqcVerify('ML-DSA-44', a.publicKey!, data, withContext, { context })).toBe(true);
      expect(pqcVerify('ML-DSA-44', a.publicKey!, data, withContext)).toBe(false);
      // Imports: the expanded key gives back its public key; a broken one is refused as a CryptoError.
      const imported = await pool.import('ML-DSA-44', 'expanded', a.material);
      expect(imported.publicKey.equals(a.publicKey!)).toBe(true);
      const broken = Buffer.from(a.material);
      broken[100]! ^= 1;
      await expect(pool.import('ML-DSA-44', 'expanded', broken)).rejects.toThrow(CryptoError);
    } finally {
      await pool.close();
    }
    expect(isHeavy('ML-KEM-768')).toBe(true);
    expect(isHeavy('AES-256')).toBe(false);
  }, 60_000);
});
