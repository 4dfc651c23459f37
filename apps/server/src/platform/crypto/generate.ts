import {
  type RSAKeyPairOptions,
  createECDH,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
} from 'node:crypto';
import { promisify } from 'node:util';
import { type AlgorithmId, type EcCurve, algorithmInfo } from './algorithms.js';
import { SM2_ORDER, sm2PublicKeyFromPrivate } from './asymmetric.js';
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

const EC_ORDER: Readonly<Record<EcCurve, bigint>> = {
  'P-256': 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  'P-384':
    0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  'P-521':
    0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
  secp256k1: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
};

const EC_NODE_CURVE: Readonly<Record<EcCurve, string>> = {
  'P-256': 'prime256v1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
  secp256k1: 'secp256k1',
};

const EC_SCALAR_BYTES: Readonly<Record<EcCurve, number>> = { 'P-256': 32, 'P-384': 48, 'P-521': 66, secp256k1: 32 };

/** An EC key pair from a scalar drawn below the group order; OpenSSL only computes d·G and the DER. */
function generateEc(curve: EcCurve): { material: Buffer; publicKey: Buffer } {
  const d = bigIntToBytes(randomScalar(EC_ORDER[curve]), EC_SCALAR_BYTES[curve]);
  const ecdh = createECDH(EC_NODE_CURVE[curve]);
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
  const publicKey = createPublicKey(createPrivateKey({ key: material, format: 'der', type: 'pkcs8' })).export({
    type: 'spki',
    format: 'der',
  });
  return { material, publicKey };
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
