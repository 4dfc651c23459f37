import { createPrivateKey, createPublicKey } from 'node:crypto';
import { sm2 } from 'sm-crypto-v2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AlgorithmId } from '@ksp/contracts';
import {
  SM2_DEFAULT_USER_ID,
  asymmetricDecrypt,
  asymmetricEncrypt,
  ecdsaSign,
  ecdsaVerify,
  ed25519Sign,
  ed25519Verify,
  parsePrivateKey,
  rsaOaepDecrypt,
  rsaOaepEncrypt,
  rsaOaepMaxPlaintext,
  rsaSign,
  rsaVerify,
  sign,
  sm2Decrypt,
  sm2Encrypt,
  sm2PublicKeyFromPrivate,
  sm2Sign,
  sm2Verify,
  takesKeyObject,
  verify,
} from './asymmetric.js';
import { decodeDerSignature, ed25519PrivateKeyFromSeed, sm2PublicKeyFromSpki } from './encoding.js';
import { type GeneratedKey, generateKey } from './generate.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const flip = (bytes: Buffer, index = 0) => {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
};
const publicKeyOf = (key: GeneratedKey): Buffer => {
  if (!key.publicKey) throw new Error(`${key.algorithm} key without a public key`);
  return key.publicKey;
};
const message = Buffer.from('The quick brown fox jumps over the lazy dog');

describe('Ed25519', () => {
  // RFC 8032 §7.1, TEST 1 (empty message) and TEST 2 (one byte, 0x72).
  const vectors = [
    {
      name: 'TEST 1',
      secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
      publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      message: '',
      signature:
        'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    },
    {
      name: 'TEST 2',
      secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
      publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
      message: '72',
      signature:
        '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    },
  ];

  it.each(vectors)('matches RFC 8032 $name', (vector) => {
    const privateKey = ed25519PrivateKeyFromSeed(hex(vector.secret));
    const spki = createPublicKey(createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' })).export({
      type: 'spki',
      format: 'der',
    });
    expect(spki.subarray(-32).toString('hex')).toBe(vector.publicKey);
    const signature = ed25519Sign(privateKey, hex(vector.message));
    expect(signature.toString('hex')).toBe(vector.signature);
    expect(ed25519Verify(spki, hex(vector.message), signature)).toBe(true);
    expect(ed25519Verify(spki, Buffer.from('x'), signature)).toBe(false);
    expect(ed25519Verify(spki, hex(vector.message), flip(signature, 40))).toBe(false);
  });

  it('refuses a key of another algorithm', () => {
    const ec = generateKey('EC-P256');
    expect(() => ed25519Sign(ec.material, message)).toThrow(/not an ED25519 key/);
  });
});

describe('RSA', () => {
  let rsa2048: GeneratedKey;
  let other2048: GeneratedKey;
  beforeAll(() => {
    rsa2048 = generateKey('RSA-2048');
    other2048 = generateKey('RSA-2048');
  });

  it('OAEP-SHA256 round-trips up to the size limit, with and without a label', () => {
    const max = rsaOaepMaxPlaintext('RSA-2048');
    expect(max).toBe(256 - 66);
    const plaintext = Buffer.alloc(max, 0x5a);
    const ciphertext = rsaOaepEncrypt('RSA-2048', publicKeyOf(rsa2048), plaintext);
    expect(ciphertext).toHaveLength(256);
    expect(rsaOaepDecrypt('RSA-2048', rsa2048.material, ciphertext)).toEqual(plaintext);
    const labelled = rsaOaepEncrypt('RSA-2048', publicKeyOf(rsa2048), message, Buffer.from('label'));
    expect(rsaOaepDecrypt('RSA-2048', rsa2048.material, labelled, Buffer.from('label'))).toEqual(message);
    expect(() => rsaOaepDecrypt('RSA-2048', rsa2048.material, labelled)).toThrow(/OAEP decryption failed/);
    expect(() => rsaOaepEncrypt('RSA-2048', publicKeyOf(rsa2048), Buffer.alloc(max + 1))).toThrow(
      /at most 190/,
    );
  });

  it('OAEP refuses a tampered ciphertext and another private key', () => {
    const ciphertext = rsaOaepEncrypt('RSA-2048', publicKeyOf(rsa2048), message);
    expect(() => rsaOaepDecrypt('RSA-2048', rsa2048.material, flip(ciphertext, 100))).toThrow(/OAEP/);
    expect(() => rsaOaepDecrypt('RSA-2048', other2048.material, ciphertext)).toThrow(/OAEP/);
  });

  it('PSS and PKCS#1 v1.5 signatures verify, and fail on another message, key or scheme', () => {
    for (const scheme of ['PSS', 'PKCS1-v1_5'] as const) {
      const signature = rsaSign('RSA-2048', rsa2048.material, message, scheme);
      expect(signature).toHaveLength(256);
      expect(rsaVerify('RSA-2048', publicKeyOf(rsa2048), message, signature, scheme)).toBe(true);
      expect(rsaVerify('RSA-2048', publicKeyOf(rsa2048), Buffer.from('other'), signature, scheme)).toBe(
        false,
      );
      expect(rsaVerify('RSA-2048', publicKeyOf(other2048), message, signature, scheme)).toBe(false);
      expect(rsaVerify('RSA-2048', publicKeyOf(rsa2048), message, flip(signature, 10), scheme)).toBe(false);
    }
    const pss = rsaSign('RSA-2048', rsa2048.material, message);
    expect(rsaVerify('RSA-2048', publicKeyOf(rsa2048), message, pss, 'PKCS1-v1_5')).toBe(false);
    // PKCS#1 v1.5 is deterministic, PSS is salted.
    expect(rsaSign('RSA-2048', rsa2048.material, message, 'PKCS1-v1_5')).toEqual(
      rsaSign('RSA-2048', rsa2048.material, message, 'PKCS1-v1_5'),
    );
    expect(pss.equals(rsaSign('RSA-2048', rsa2048.material, message))).toBe(false);
  });

  it('checks that the key has the modulus the algorithm names', () => {
    expect(() => rsaSign('RSA-3072', rsa2048.material, message)).toThrow(/not an RSA-3072 key/);
    expect(() => rsaVerify('RSA-4096', publicKeyOf(rsa2048), message, Buffer.alloc(512))).toThrow(
      /not an RSA-4096 key/,
    );
    expect(() => rsaSign('RSA-2048', Buffer.from('junk'), message)).toThrow(/not PKCS#8 DER/);
  });
});

describe('ECDSA', () => {
  const curves = ['EC-P256', 'EC-P384', 'EC-P521', 'EC-SECP256K1'] as const;

  it.each(curves)('%s signs (DER) and verifies; tampering, another message or key fails', (algorithm) => {
    const key = generateKey(algorithm);
    const other = generateKey(algorithm);
    const signature = ecdsaSign(algorithm, key.material, message);
    expect(signature[0]).toBe(0x30);
    expect(() => decodeDerSignature(signature)).not.toThrow();
    expect(ecdsaVerify(algorithm, publicKeyOf(key), message, signature)).toBe(true);
    expect(ecdsaVerify(algorithm, publicKeyOf(key), Buffer.from('other'), signature)).toBe(false);
    expect(ecdsaVerify(algorithm, publicKeyOf(other), message, signature)).toBe(false);
    expect(ecdsaVerify(algorithm, publicKeyOf(key), message, flip(signature, signature.length - 1))).toBe(
      false,
    );
    expect(ecdsaVerify(algorithm, publicKeyOf(key), message, Buffer.from('not a signature'))).toBe(false);
  });

  it('refuses a key on another curve', () => {
    const p256 = generateKey('EC-P256');
    expect(() => ecdsaSign('EC-SECP256K1', p256.material, message)).toThrow(/not an EC-SECP256K1 key/);
  });
});

describe('SM2', () => {
  let key: GeneratedKey;
  let point: Buffer;
  beforeAll(() => {
    key = generateKey('SM2');
    point = sm2PublicKeyFromSpki(publicKeyOf(key));
  });

  it('derives the public point from the private scalar', () => {
    expect(key.material).toHaveLength(32);
    expect(sm2PublicKeyFromPrivate(key.material)).toEqual(point);
  });

  it('signs with SM3 and the default ID, DER encoded, and verifies with SPKI or the point', () => {
    const signature = sm2Sign(key.material, message);
    const { r, s } = decodeDerSignature(signature);
    expect(r > 0n && s > 0n).toBe(true);
    expect(sm2Verify(publicKeyOf(key), message, signature)).toBe(true);
    expect(sm2Verify(point, message, signature)).toBe(true);
    expect(sm2Verify(point, Buffer.from('other'), signature)).toBe(false);
    expect(sm2Verify(point, message, flip(signature, signature.length - 1))).toBe(false);
    expect(sm2Verify(sm2PublicKeyFromSpki(publicKeyOf(generateKey('SM2'))), message, signature)).toBe(false);
  });

  it('binds the distinguishing ID: another ID (or the empty one OpenSSL uses) does not verify', () => {
    const signature = sm2Sign(key.material, message, { userId: 'alice@example.com' });
    expect(sm2Verify(point, message, signature, { userId: 'alice@example.com' })).toBe(true);
    expect(sm2Verify(point, message, signature)).toBe(false);
    expect(sm2Verify(point, message, sm2Sign(key.material, message), { userId: '' })).toBe(false);
  });

  it('agrees with sm-crypto-v2 itself in both directions (ID 1234567812345678)', () => {
    const pointHex = point.toString('hex');
    const theirs = sm2.doSignature(message, key.material.toString('hex'), {
      hash: true,
      der: true,
      publicKey: pointHex,
      userId: SM2_DEFAULT_USER_ID,
    });
    expect(sm2Verify(point, message, Buffer.from(theirs, 'hex'))).toBe(true);
    const ours = sm2Sign(key.material, message).toString('hex');
    expect(
      sm2.doVerifySignature(message, ours, pointHex, { hash: true, der: true, userId: SM2_DEFAULT_USER_ID }),
    ).toBe(true);
  });

  it('rejects signature encodings that are not strict DER', () => {
    const signature = sm2Sign(key.material, message);
    const padded = Buffer.concat([signature, Buffer.from([0])]);
    expect(sm2Verify(point, message, padded)).toBe(false);
    expect(sm2Verify(point, message, Buffer.alloc(0))).toBe(false);
  });

  it('encrypts as C1 || C3 || C2 and decrypts; tampering or another key fails', () => {
    const ciphertext = sm2Encrypt(publicKeyOf(key), message);
    expect(ciphertext).toHaveLength(65 + 32 + message.length);
    expect(ciphertext[0]).toBe(0x04);
    expect(sm2Decrypt(key.material, ciphertext)).toEqual(message);
    for (const index of [70, 100, ciphertext.length - 1]) {
      expect(() => sm2Decrypt(key.material, flip(ciphertext, index))).toThrow(/SM2 decryption failed/);
    }
    expect(() => sm2Decrypt(key.material, flip(ciphertext, 5))).toThrow(/SM2 decryption failed/);
    expect(() => sm2Decrypt(generateKey('SM2').material, ciphertext)).toThrow(/SM2 decryption failed/);
    expect(() => sm2Encrypt(publicKeyOf(key), Buffer.alloc(0))).toThrow(/empty/);
  });

  it('interoperates with sm-crypto-v2 encryption (C1C3C2, C1 without its 04 byte there)', () => {
    const theirs = sm2.doEncrypt(message, point.toString('hex'), 1);
    expect(sm2Decrypt(key.material, Buffer.from(`04${theirs}`, 'hex'))).toEqual(message);
    const ours = sm2Encrypt(point, message).toString('hex').slice(2);
    expect(Buffer.from(sm2.doDecrypt(ours, key.material.toString('hex'), 1, { output: 'array' }))).toEqual(
      message,
    );
  });

  it('refuses a private scalar out of range and a public key off the curve', () => {
    expect(() => sm2Sign(Buffer.alloc(32), message)).toThrow(/out of range/);
    expect(() => sm2Sign(Buffer.alloc(32, 0xff), message)).toThrow(/out of range/);
    expect(() => sm2Sign(Buffer.alloc(31, 1), message)).toThrow(/32-byte scalar/);
    const offCurve = Buffer.from(point);
    offCurve[64] = (offCurve[64] ?? 0) ^ 1;
    expect(() => sm2Verify(offCurve, message, sm2Sign(key.material, message))).toThrow(
      /not a point on the curve/,
    );
  });
});

describe('by algorithm id', () => {
  const signers: AlgorithmId[] = ['RSA-2048', 'EC-P384', 'ED25519', 'SM2', 'ML-DSA-44', 'SLH-DSA-SHA2-128F'];

  it.each(signers)('%s: sign() and verify() dispatch to the right primitive', (algorithm) => {
    const key = generateKey(algorithm);
    const signature = sign(algorithm, key.material, message);
    expect(verify(algorithm, publicKeyOf(key), message, signature)).toBe(true);
    expect(verify(algorithm, publicKeyOf(key), Buffer.from('tampered'), signature)).toBe(false);
  });

  it('encrypts with RSA and SM2 keys only', () => {
    for (const algorithm of ['RSA-2048', 'SM2'] as const) {
      const key = generateKey(algorithm);
      const ciphertext = asymmetricEncrypt(algorithm, publicKeyOf(key), message);
      expect(asymmetricDecrypt(algorithm, key.material, ciphertext)).toEqual(message);
    }
    const ec = generateKey('EC-P256');
    expect(() => asymmetricEncrypt('EC-P256', publicKeyOf(ec), message)).toThrow(/do not encrypt/);
    expect(() => asymmetricEncrypt('ML-KEM-768', Buffer.alloc(1184), message)).toThrow(/encapsulate/);
    expect(() => sign('AES-256', Buffer.alloc(32), message)).toThrow(/do not sign/);
  });
});

describe('parsed private keys (key objects)', () => {
  it.each(['RSA-2048', 'EC-P256', 'EC-P384', 'EC-P521', 'EC-SECP256K1', 'ED25519'] as const)(
    '%s signs with the key object as with its DER',
    (algorithm) => {
      expect(takesKeyObject(algorithm)).toBe(true);
      const key = generateKey(algorithm);
      const parsed = parsePrivateKey(key.material);
      const signature = sign(algorithm, parsed, message);
      expect(verify(algorithm, publicKeyOf(key), message, signature)).toBe(true);
      expect(verify(algorithm, publicKeyOf(key), Buffer.from('other'), signature)).toBe(false);
    },
  );

  it('gives the same deterministic signatures (Ed25519, RSA PKCS#1 v1.5) and decrypts RSA-OAEP', () => {
    const ed = generateKey('ED25519');
    expect(ed25519Sign(parsePrivateKey(ed.material), message)).toEqual(ed25519Sign(ed.material, message));
    const rsa = generateKey('RSA-2048');
    const parsed = parsePrivateKey(rsa.material);
    expect(rsaSign('RSA-2048', parsed, message, 'PKCS1-v1_5')).toEqual(
      rsaSign('RSA-2048', rsa.material, message, 'PKCS1-v1_5'),
    );
    const pss = rsaSign('RSA-2048', parsed, message, 'PSS');
    expect(rsaVerify('RSA-2048', publicKeyOf(rsa), message, pss, 'PSS')).toBe(true);
    const ciphertext = asymmetricEncrypt('RSA-2048', publicKeyOf(rsa), message);
    expect(asymmetricDecrypt('RSA-2048', parsed, ciphertext)).toEqual(message);
    expect(() => rsaOaepDecrypt('RSA-2048', parsed, flip(ciphertext, 100))).toThrow(/OAEP decryption failed/);
  });

  it('refuses a key object of another algorithm, a public one, and one where bytes are computed on', () => {
    const p256 = generateKey('EC-P256');
    const parsed = parsePrivateKey(p256.material);
    expect(() => ecdsaSign('EC-SECP256K1', parsed, message)).toThrow(/not an EC-SECP256K1 key/);
    expect(() => ed25519Sign(parsed, message)).toThrow(/not an ED25519 key/);
    const rsa = parsePrivateKey(generateKey('RSA-2048').material);
    expect(() => rsaSign('RSA-3072', rsa, message)).toThrow(/not an RSA-3072 key/);
    expect(() => ecdsaSign('EC-P256', createPublicKey(parsed), message)).toThrow(/not a private key/);
    for (const algorithm of ['SM2', 'ML-DSA-44'] as const) {
      expect(takesKeyObject(algorithm)).toBe(false);
      expect(() => sign(algorithm, parsed, message)).toThrow(/given as its stored bytes/);
    }
    expect(() => asymmetricDecrypt('SM2', parsed, Buffer.alloc(120))).toThrow(/given as its stored bytes/);
    expect(() => parsePrivateKey(Buffer.from('junk'))).toThrow(/not PKCS#8 DER/);
  });
});
