import { createPublicKey, ECDH, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { verifySignature } from './signer.js';

const DATA = Buffer.from('to be signed: a CSR or a certificate body');
const alg = (oid: string) => new AlgorithmIdentifier({ algorithm: oid });
const SHA256_RSA = '1.2.840.113549.1.1.11';
const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const ECDSA_SHA384 = '1.2.840.10045.4.3.3';
const ED25519 = '1.3.101.112';

/** Signatures checked with keys built from their numbers (JWK) or, when that cannot be, from DER. */
describe('verifySignature', () => {
  const cases = [
    {
      name: 'RSA-2048',
      pair: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
      oid: SHA256_RSA,
      hash: 'sha256',
    },
    {
      name: 'RSA-3072, exponent 3',
      pair: () => generateKeyPairSync('rsa', { modulusLength: 3072, publicExponent: 3 }),
      oid: SHA256_RSA,
      hash: 'sha256',
    },
    {
      name: 'EC P-256',
      pair: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
      oid: ECDSA_SHA256,
      hash: 'sha256',
    },
    {
      name: 'EC P-384',
      pair: () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
      oid: ECDSA_SHA384,
      hash: 'sha384',
    },
    {
      name: 'EC P-521',
      pair: () => generateKeyPairSync('ec', { namedCurve: 'P-521' }),
      oid: ECDSA_SHA256,
      hash: 'sha256',
    },
    { name: 'Ed25519', pair: () => generateKeyPairSync('ed25519'), oid: ED25519, hash: null },
  ];
  for (const c of cases) {
    it(`${c.name}: a good signature verifies, a changed one or other data does not`, () => {
      const { publicKey, privateKey } = c.pair();
      const spki = publicKey.export({ format: 'der', type: 'spki' });
      const signature = sign(c.hash, DATA, privateKey);
      expect(verifySignature(alg(c.oid), spki, DATA, signature)).toBe(true);
      const bad = Buffer.from(signature);
      bad[bad.length - 5]! ^= 1;
      expect(verifySignature(alg(c.oid), spki, DATA, bad)).toBe(false);
      expect(verifySignature(alg(c.oid), spki, Buffer.from('other data'), signature)).toBe(false);
      // Another key's SPKI does not verify it.
      const other = c.pair().publicKey.export({ format: 'der', type: 'spki' });
      expect(verifySignature(alg(c.oid), other, DATA, signature)).toBe(false);
    });
  }

  it('verifies with a compressed EC point (read from DER) and refuses a point off the curve', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    const signature = sign('sha256', DATA, privateKey);
    const point = spki.subarray(spki.length - 65);
    const short = ECDH.convertKey(point, 'prime256v1', undefined, undefined, 'compressed') as Buffer;
    const algorithmId = spki.subarray(2, 2 + 21);
    const compressedSpki = Buffer.concat([
      Buffer.from([0x30, 0x39]),
      algorithmId,
      Buffer.from([0x03, 0x22, 0x00]),
      short,
    ]);
    expect(createPublicKey({ key: compressedSpki, format: 'der', type: 'spki' }).asymmetricKeyType).toBe(
      'ec',
    );
    expect(verifySignature(alg(ECDSA_SHA256), compressedSpki, DATA, signature)).toBe(true);
    const offCurve = Buffer.from(spki);
    offCurve[offCurve.length - 1]! ^= 1;
    expect(verifySignature(alg(ECDSA_SHA256), offCurve, DATA, signature)).toBe(false);
  });
});
