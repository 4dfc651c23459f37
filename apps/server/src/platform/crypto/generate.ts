import {
  type RSAKeyPairOptions,
  createECDH,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
} from 'node:crypto';
import { promisify } from 'node:util';
import { type AlgorithmId, type EcCurve, algorithmInfo } from '@ksp/contracts';
import { EC_CURVES, SM2_ORDER, sm2PublicKeyFromPrivate } from './asymmetric.js';
import { bigIntToBytes, ed25519PrivateKeyFromSeed, sm2PublicKeyToSpki } from './encoding.js';
import { isMlKemAlgorithm, isPqcSignatureAlgorithm, pqcGenerateKeyPair } from './post-quantum.js';
import { randomBytes, randomScalar } from './random.js';

/**
 * Key generation for every algorithm of the catalogue. Encodings of the result:
 *
 * | family                 | material (secret)                    | publicKey                     |
 * |------------------------|--------------------------------------|-------------------------------|
 * | AES, SM4, HMAC         | raw key bytes                        | –                             |
 * | RSA, EC, Ed25519       | PKCS#8 DER                           | SubjectPublicKeyInfo DER      |
 * | SM2                    | raw 32-byte scalar d                 | SubjectPublicKeyInfo DER      |
 * | ML-KEM, ML-DSA, SLH-DSA| the standard's private key bytes     | the standard's public key     |
 *
 * Everything except RSA draws its secret from `random.ts`; all of it is synchronous
 * and pure (no state kept), so a caller may run it in a worker thread.
 */
export interface GeneratedKey {
  readonly algorithm: AlgorithmId;
  readonly material: Buffer;
  readonly publicKey?: Buffer;
}

/** An EC key pair from a scalar drawn below the group order; OpenSSL only computes d·G and the DER. */
function generateEc(curve: EcCurve): { material: Buffer; publicKey: Buffer } {
  const { openSslName, order, scalarBytes } = EC_CURVES[curve];
  const d = bigIntToBytes(randomScalar(order), scalarBytes);
  const ecdh = createECDH(openSslName);
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(null, 'uncompressed');
  const coordinate = (point.length - 1) / 2;
  const privateKey = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: curve,
      d: d.toString('base64url'),
      x: point.subarray(1, 1 + coordinate).toString('base64url'),
      y: point.subarray(1 + coordinate).toString('base64url'),
    },
  });
  d.fill(0);
  return {
    material: privateKey.export({ type: 'pkcs8', format: 'der' }),
    publicKey: createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
  };
}

function generateEd25519(): { material: Buffer; publicKey: Buffer } {
  const seed = randomBytes(32);
  const material = ed25519PrivateKeyFromSeed(seed);
  seed.fill(0);
  const privateKey = createPrivateKey({ key: material, format: 'der', type: 'pkcs8' });
  return { material, publicKey: createPublicKey(privateKey).export({ type: 'spki', format: 'der' }) };
}

function generateSm2(): { material: Buffer; publicKey: Buffer } {
  // d in [1, n - 2] (GB/T 32918.1): a scalar below n - 1.
  const material = bigIntToBytes(randomScalar(SM2_ORDER - 1n), 32);
  return { material, publicKey: sm2PublicKeyToSpki(sm2PublicKeyFromPrivate(material)) };
}

const RSA_OPTIONS = (modulusLength: number): RSAKeyPairOptions<'der', 'der'> => ({
  modulusLength,
  publicExponent: 0x10001,
  privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  publicKeyEncoding: { type: 'spki', format: 'der' },
});

export function generateKey(algorithm: AlgorithmId): GeneratedKey {
  const info = algorithmInfo(algorithm);
  switch (info.family) {
    case 'AES':
    case 'SM4':
    case 'HMAC':
      return { algorithm, material: randomBytes(info.sizeBits / 8) };
    case 'RSA': {
      const pair = generateKeyPairSync('rsa', RSA_OPTIONS(info.sizeBits));
      return { algorithm, material: pair.privateKey, publicKey: pair.publicKey };
    }
    case 'EC':
      if (!info.curve) throw new Error(`${algorithm} has no curve in the catalogue`);
      return { algorithm, ...generateEc(info.curve) };
    case 'ED25519':
      return { algorithm, ...generateEd25519() };
    case 'SM2':
      return { algorithm, ...generateSm2() };
    case 'ML-KEM':
    case 'ML-DSA':
    case 'SLH-DSA': {
      if (!isMlKemAlgorithm(algorithm) && !isPqcSignatureAlgorithm(algorithm)) {
        throw new Error(`${algorithm} is missing from post-quantum.ts`);
      }
      const pair = pqcGenerateKeyPair(algorithm);
      return { algorithm, material: pair.secretKey, publicKey: pair.publicKey };
    }
  }
}

const generateRsaAsync = promisify(generateKeyPair);

/**
 * The same as `generateKey`, but RSA primes are searched on libuv's thread pool
 * (RSA-4096 takes seconds). Everything else runs inline: milliseconds, except the
 * SLH-DSA "s" sets (up to a few seconds in JavaScript), which belong in a worker.
 */
export async function generateKeyAsync(algorithm: AlgorithmId): Promise<GeneratedKey> {
  const info = algorithmInfo(algorithm);
  if (info.family !== 'RSA') return generateKey(algorithm);
  const pair = await generateRsaAsync('rsa', RSA_OPTIONS(info.sizeBits));
  return { algorithm, material: pair.privateKey, publicKey: pair.publicKey };
}
