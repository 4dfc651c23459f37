import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sm2Encrypt, sm2PublicKeyFromPrivate } from './asymmetric.js';
import {
  bigIntToBytes,
  bytesToBigInt,
  decodeDerSignature,
  derToPem,
  encodeDerSignature,
  pemToDer,
  sm2CiphertextFromDer,
  sm2CiphertextToDer,
  sm2PrivateKeyToPkcs8,
  sm2PublicKeyFromSpki,
  sm2PublicKeyToSpki,
} from './encoding.js';
import { generateKey } from './generate.js';
import { randomBytes, randomScalar } from './random.js';

const hex = (text: string) => Buffer.from(text, 'hex');

describe('DER signatures', () => {
  it('encodes minimal positive integers and decodes them back', () => {
    expect(encodeDerSignature(1n, 0x80n).toString('hex')).toBe('3007020101020200' + '80');
    const r = 0xff00000000000000000000000000000000000000000000000000000000000001n;
    const s = 0x7fn;
    const der = encodeDerSignature(r, s);
    expect(der.subarray(0, 5).toString('hex')).toBe('3026022100'); // r gets a 00 byte: its top bit is set
    expect(decodeDerSignature(der)).toEqual({ r, s });
  });

  it('uses the long length form past 127 bytes (P-521 signatures)', () => {
    const big = (1n << 520n) + 12345n;
    const der = encodeDerSignature(big, big);
    expect(der[1]).toBe(0x81);
    expect(decodeDerSignature(der)).toEqual({ r: big, s: big });
  });

  it.each([
    ['empty', ''],
    ['not a SEQUENCE', '3106020101020101'],
    ['trailing bytes', '300602010102010100'],
    ['length past the end', '300702010102010'],
    ['negative r', '3006020181020101'],
    ['non-minimal r', '300702020001020101'],
    ['empty INTEGER', '30050200020101'],
    ['a third field', '3009020101020101020101'],
    ['non-minimal length form', '30810602010102010100'],
  ])('refuses %s', (_, text) => {
    expect(() => decodeDerSignature(hex(text))).toThrow(/Malformed DER signature/);
  });
});

describe('SM2 key encodings', () => {
  it('SPKI round-trips the uncompressed point and refuses other encodings', () => {
    const point = sm2PublicKeyFromPrivate(generateKey('SM2').material);
    const spki = sm2PublicKeyToSpki(point);
    expect(spki).toHaveLength(91);
    expect(sm2PublicKeyFromSpki(spki)).toEqual(point);
    expect(() => sm2PublicKeyToSpki(point.subarray(1))).toThrow(/65 bytes/);
    const p256 = generateKey('EC-P256').publicKey ?? Buffer.alloc(0);
    expect(() => sm2PublicKeyFromSpki(p256)).toThrow(/Not an SM2 SubjectPublicKeyInfo/);
  });

  it('PKCS#8 is read by OpenSSL as the same key', () => {
    const key = generateKey('SM2');
    const point = sm2PublicKeyFromPrivate(key.material);
    const pkcs8 = sm2PrivateKeyToPkcs8(key.material, point);
    expect(pkcs8).toHaveLength(138);
    const parsed = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    // Node cannot export SM2 as JWK; the public half OpenSSL derives must be ours.
    expect(createPublicKey(parsed).export({ type: 'spki', format: 'der' })).toEqual(
      sm2PublicKeyToSpki(point),
    );
    expect(parsed.export({ type: 'pkcs8', format: 'der' }).includes(key.material)).toBe(true);
  });

  it('GM/T 0009 ciphertexts convert to C1C3C2 and back', () => {
    const key = generateKey('SM2');
    const raw = sm2Encrypt(key.publicKey ?? Buffer.alloc(0), randomBytes(300));
    const der = sm2CiphertextToDer(raw);
    expect(der[0]).toBe(0x30);
    expect(sm2CiphertextFromDer(der)).toEqual(raw);
    expect(() => sm2CiphertextFromDer(Buffer.concat([der, Buffer.from([0])]))).toThrow(/Malformed SM2Cipher/);
    expect(() => sm2CiphertextToDer(raw.subarray(0, 97))).toThrow(/SM2 ciphertext is C1/);
  });
});

describe('PEM and integers', () => {
  it('PEM armours DER in 64-character lines and reads it back', () => {
    const der = randomBytes(100);
    const pem = derToPem(der, 'PUBLIC KEY');
    expect(pem.split('\n')[1]).toHaveLength(64);
    expect(pemToDer(pem, 'PUBLIC KEY')).toEqual(der);
    expect(() => pemToDer(pem, 'PRIVATE KEY')).toThrow(/No 'PRIVATE KEY' PEM block/);
  });

  it('converts big-endian integers exactly', () => {
    expect(bigIntToBytes(1n, 4).toString('hex')).toBe('00000001');
    expect(bytesToBigInt(hex('0100'))).toBe(256n);
    expect(() => bigIntToBytes(1n << 32n, 4)).toThrow(/does not fit/);
  });
});

describe('random', () => {
  it('randomBytes gives the requested length and refuses nonsense', () => {
    expect(randomBytes(0)).toHaveLength(0);
    expect(randomBytes(33)).toHaveLength(33);
    expect(randomBytes(32).equals(randomBytes(32))).toBe(false);
    expect(() => randomBytes(-1)).toThrow(RangeError);
    expect(() => randomBytes(1.5)).toThrow(RangeError);
    expect(() => randomBytes(1 << 20)).toThrow(RangeError);
  });

  it('randomScalar stays in [1, limit - 1] and reaches both ends of a small range', () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 400; i++) {
      const value = randomScalar(5n);
      expect(value >= 1n && value <= 4n).toBe(true);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([1n, 2n, 3n, 4n]);
    const order = 0xfffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123n;
    for (let i = 0; i < 50; i++) expect(randomScalar(order) < order).toBe(true);
    expect(() => randomScalar(2n)).toThrow(RangeError);
  });
});
