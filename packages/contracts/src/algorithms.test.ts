import { describe, expect, it } from 'vitest';
import {
  ALGORITHM_IDS,
  type AlgorithmId,
  Usage,
  algorithmByCode,
  algorithmInfo,
  describeUsage,
  importLengthMismatch,
  importExpectation,
  importFormats,
  IMPORT_FORMATS,
  USAGE_BITS,
  USAGE_WORDS,
  usageBit,
  usageWords,
  isAlgorithmId,
  listAlgorithms,
  validateUsage,
} from './algorithms.js';

const { Sign, Verify, Encrypt, Decrypt, WrapKey, UnwrapKey, MacGenerate, MacVerify, KeyAgreement } = Usage;

describe('catalogue', () => {
  it('lists every required algorithm once, with a unique one-byte code', () => {
    expect(ALGORITHM_IDS).toHaveLength(34);
    expect(new Set(ALGORITHM_IDS).size).toBe(34);
    const codes = listAlgorithms().map((info) => info.code);
    expect(new Set(codes).size).toBe(34);
    for (const info of listAlgorithms()) {
      expect(info.code).toBeGreaterThan(0);
      expect(info.code).toBeLessThan(256);
      expect(algorithmByCode(info.code)).toBe(info);
      expect(algorithmInfo(info.id)).toBe(info);
    }
    expect(algorithmByCode(255)).toBeNull();
  });

  it('recognises ids exactly', () => {
    expect(isAlgorithmId('SLH-DSA-SHAKE-256F')).toBe(true);
    expect(isAlgorithmId('aes-256')).toBe(false);
    expect(isAlgorithmId('RSA-1024')).toBe(false);
  });

  it('records family, kind, size, curve and digest', () => {
    expect(algorithmInfo('AES-192')).toMatchObject({ family: 'AES', kind: 'symmetric', sizeBits: 192 });
    expect(algorithmInfo('SM4')).toMatchObject({ family: 'SM4', kind: 'symmetric', sizeBits: 128 });
    expect(algorithmInfo('HMAC-SHA384')).toMatchObject({ family: 'HMAC', sizeBits: 384, digest: 'SHA-384' });
    expect(algorithmInfo('RSA-3072')).toMatchObject({ family: 'RSA', kind: 'asymmetric', sizeBits: 3072 });
    expect(algorithmInfo('EC-P521')).toMatchObject({ curve: 'P-521', sizeBits: 521, digest: 'SHA-512' });
    expect(algorithmInfo('EC-SECP256K1')).toMatchObject({ curve: 'secp256k1', digest: 'SHA-256' });
    expect(algorithmInfo('SM2')).toMatchObject({ family: 'SM2', digest: 'SM3' });
    expect(algorithmInfo('ML-DSA-44')).toMatchObject({ sizeBits: 128, pqc: { category: 2 } });
    expect(algorithmInfo('SLH-DSA-SHAKE-192F')).toMatchObject({
      family: 'SLH-DSA',
      sizeBits: 192,
      pqc: { parameterSet: 'SLH-DSA-SHAKE-192f', category: 3, publicKeyBytes: 48, privateKeyBytes: 96 },
    });
    for (const info of listAlgorithms()) {
      expect(info.kind === 'symmetric').toBe(['AES', 'SM4', 'HMAC'].includes(info.family));
      expect(info.pqc !== undefined).toBe(['ML-KEM', 'ML-DSA', 'SLH-DSA'].includes(info.family));
    }
  });
});

describe('validateUsage', () => {
  const valid: [AlgorithmId, number, string][] = [
    ['AES-256', Encrypt | Decrypt, 'encryption'],
    ['AES-128', Encrypt | Decrypt | WrapKey | UnwrapKey, 'encryption'],
    ['SM4', WrapKey | UnwrapKey, 'encryption'],
    ['HMAC-SHA256', MacGenerate | MacVerify, 'mac'],
    ['HMAC-SHA512', MacVerify, 'mac'],
    ['RSA-2048', Encrypt | Decrypt | WrapKey | UnwrapKey, 'encryption'],
    ['RSA-4096', Sign | Verify, 'signing'],
    ['SM2', Encrypt | Decrypt, 'encryption'],
    ['SM2', Sign | Verify, 'signing'],
    ['EC-P256', Sign | Verify, 'signing'],
    ['EC-SECP256K1', Verify, 'signing'],
    ['ED25519', Sign | Verify, 'signing'],
    ['ML-DSA-65', Sign | Verify, 'signing'],
    ['SLH-DSA-SHA2-128S', Sign | Verify, 'signing'],
    ['ML-KEM-768', KeyAgreement, 'key-agreement'],
  ];

  it.each(valid)('%s accepts mask %i (%s)', (algorithm, mask, profile) => {
    expect(validateUsage(algorithm, mask)).toEqual({ valid: true, profile });
  });

  const reasonFor = (algorithm: AlgorithmId, mask: number) => {
    const result = validateUsage(algorithm, mask);
    if (result.valid) throw new Error(`${algorithm} accepted ${mask}`);
    return result.reason;
  };

  it('refuses bits an algorithm cannot honour, naming them and what is allowed', () => {
    expect(reasonFor('EC-P256', Sign | Encrypt)).toBe(
      'EC-P256 keys cannot be used for Encrypt (0x4); allowed: Sign (0x1), Verify (0x2)',
    );
    expect(reasonFor('AES-256', Sign)).toBe(
      'AES-256 keys cannot be used for Sign (0x1); allowed: Encrypt (0x4), Decrypt (0x8), WrapKey (0x10), UnwrapKey (0x20)',
    );
    expect(reasonFor('AES-256', MacGenerate)).toMatch(/cannot be used for MacGenerate \(0x80\)/);
    expect(reasonFor('HMAC-SHA256', Encrypt | MacGenerate)).toMatch(
      /HMAC-SHA256 keys cannot be used for Encrypt/,
    );
    expect(reasonFor('ED25519', Decrypt)).toMatch(/cannot be used for Decrypt/);
    expect(reasonFor('ML-KEM-512', Encrypt | Decrypt)).toMatch(/allowed: KeyAgreement \(0x800\)/);
    expect(reasonFor('ML-DSA-87', KeyAgreement)).toMatch(/cannot be used for KeyAgreement/);
    expect(reasonFor('SLH-DSA-SHAKE-256F', WrapKey)).toMatch(/cannot be used for WrapKey/);
    expect(reasonFor('AES-128', Usage.Export | Encrypt)).toMatch(/Export \(0x40\)/);
    expect(reasonFor('AES-128', 0x4000 | Encrypt)).toMatch(/unknown bit 0x4000/);
  });

  it('refuses RSA and SM2 masks that mix encryption and signing', () => {
    expect(reasonFor('RSA-2048', Sign | Decrypt)).toBe(
      'RSA-2048 keys are used for encryption (Encrypt (0x4), Decrypt (0x8), WrapKey (0x10), UnwrapKey (0x20)) ' +
        'or for signing (Sign (0x1), Verify (0x2)), not both; mask 0x9 mixes them',
    );
    expect(reasonFor('SM2', Verify | Encrypt)).toMatch(
      /^SM2 keys are used for encryption .* not both; mask 0x6/,
    );
  });

  it('refuses masks that are not a positive 32-bit integer', () => {
    for (const mask of [0, -1, 1.5, Number.NaN, 2 ** 32]) {
      expect(reasonFor('AES-256', mask)).toMatch(/Usage mask must be an integer from 1 to 0xffffffff/);
    }
  });

  it('describes masks bit by bit', () => {
    expect(describeUsage(Encrypt | Decrypt)).toEqual(['Encrypt (0x4)', 'Decrypt (0x8)']);
    expect(describeUsage(0x80000000)).toEqual(['unknown bit 0x80000000']);
    expect(describeUsage(Usage.FpeDecrypt)).toEqual(['FpeDecrypt (0x800000)']);
  });

  it('names every usage bit with one word, both ways', () => {
    expect(USAGE_BITS.map((b) => b.name).sort()).toEqual(Object.keys(Usage).sort());
    expect(new Set(USAGE_WORDS).size).toBe(USAGE_WORDS.length);
    for (const word of USAGE_WORDS) expect(usageWords(usageBit(word))).toEqual([word]);
    expect(usageWords(Encrypt + Decrypt + 0x80000000)).toEqual(['encrypt', 'decrypt']);
  });
});

describe('import lengths', () => {
  it('count raw material and SM2 scalars; PKCS#8 is parsed by the server instead', () => {
    expect(importLengthMismatch('AES-256', 32)).toBeNull();
    expect(importLengthMismatch('AES-256', 16)).toEqual({ expected: '32', got: 16 });
    expect(importLengthMismatch('HMAC-SHA256', 16)).toBeNull();
    expect(importLengthMismatch('HMAC-SHA256', 129)).toEqual({ expected: '16–128', got: 129 });
    expect(importLengthMismatch('SM2', 31)).toEqual({ expected: '32', got: 31 });
    expect(importLengthMismatch('RSA-2048', 5)).toBeNull();
  });
});

describe('import formats', () => {
  it('name the default first, and post-quantum keys always name theirs', () => {
    expect(importFormats('AES-128')).toEqual(['raw']);
    expect(importFormats('EC-P384')).toEqual(['pkcs8', 'spki', 'pem']);
    expect(importFormats('SM2')).toEqual(['sm2-scalar', 'spki', 'pem']);
    expect(importFormats('ML-KEM-768')).toEqual(['seed', 'expanded', 'public']);
    expect(importExpectation('ML-KEM-768')).toEqual({ kind: 'unsupported' });
    expect(importExpectation('RSA-2048', 'raw')).toEqual({ kind: 'unsupported' });
    expect(importExpectation('ED25519', 'spki')).toEqual({ kind: 'spki' });
  });

  it('count the post-quantum encodings by the standards', () => {
    expect(importExpectation('ML-KEM-512', 'seed')).toEqual({ kind: 'seed', bytes: 64 });
    expect(importExpectation('ML-KEM-1024', 'expanded')).toEqual({ kind: 'expanded', bytes: 3168 });
    expect(importExpectation('ML-DSA-65', 'seed')).toEqual({ kind: 'seed', bytes: 32 });
    expect(importExpectation('ML-DSA-87', 'public')).toEqual({ kind: 'public', bytes: 2592 });
    expect(importExpectation('SLH-DSA-SHAKE-192S', 'seed')).toEqual({ kind: 'seed', bytes: 72 });
    expect(importExpectation('SLH-DSA-SHA2-256F', 'expanded')).toEqual({ kind: 'expanded', bytes: 128 });
    expect(importLengthMismatch('ML-DSA-44', 31, 'seed')).toEqual({ expected: '32', got: 31 });
    expect(importLengthMismatch('ML-KEM-768', 1184, 'public')).toBeNull();
    expect(IMPORT_FORMATS).toContain('pem');
  });
});
