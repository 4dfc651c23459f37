import { createHash } from 'node:crypto';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem1024, ml_kem512, ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import {
  slh_dsa_sha2_128f,
  slh_dsa_sha2_128s,
  slh_dsa_sha2_192f,
  slh_dsa_sha2_192s,
  slh_dsa_sha2_256f,
  slh_dsa_sha2_256s,
  slh_dsa_shake_128f,
  slh_dsa_shake_128s,
  slh_dsa_shake_192f,
  slh_dsa_shake_192s,
  slh_dsa_shake_256f,
  slh_dsa_shake_256s,
} from '@noble/post-quantum/slh-dsa.js';
import { type AlgorithmId, type PqcParameters, algorithmInfo } from '@ksp/contracts';
import { invalidInput, invalidKey } from './crypto-error.js';
import { randomBytes } from './random.js';

/**
 * ML-KEM (FIPS 203), ML-DSA (FIPS 204) and SLH-DSA (FIPS 205) through
 * @noble/post-quantum: Node 20's OpenSSL 3.0 has none of them. Keys are the
 * standards' byte strings (expanded private keys). Every random input (key seeds,
 * signing randomness, the encapsulation message) is drawn from `random.ts` and
 * handed to the library, so no randomness bypasses the seam. All calls are
 * synchronous and CPU-bound; SLH-DSA "s" signing takes seconds, so a caller that
 * serves requests should run these in a worker thread.
 */

export type MlKemAlgorithm = Extract<AlgorithmId, `ML-KEM-${string}`>;
export type MlDsaAlgorithm = Extract<AlgorithmId, `ML-DSA-${string}`>;
export type SlhDsaAlgorithm = Extract<AlgorithmId, `SLH-DSA-${string}`>;
export type PqcSignatureAlgorithm = MlDsaAlgorithm | SlhDsaAlgorithm;
export type PqcAlgorithm = MlKemAlgorithm | PqcSignatureAlgorithm;

interface KeyPairBytes {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

interface NobleKeys {
  readonly lengths: { readonly seed?: number };
  keygen(seed: Uint8Array): KeyPairBytes;
  getPublicKey(secretKey: Uint8Array): Uint8Array;
}

interface NobleKem extends NobleKeys {
  encapsulate(
    publicKey: Uint8Array,
    message: Uint8Array,
  ): { cipherText: Uint8Array; sharedSecret: Uint8Array };
  decapsulate(cipherText: Uint8Array, secretKey: Uint8Array): Uint8Array;
}

interface NobleSigner extends NobleKeys {
  readonly lengths: { readonly seed?: number; readonly signRand?: number };
  sign(
    message: Uint8Array,
    secretKey: Uint8Array,
    options: { context?: Uint8Array; extraEntropy: Uint8Array },
  ): Uint8Array;
  verify(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Uint8Array,
    options: { context?: Uint8Array },
  ): boolean;
}

const KEMS: Readonly<Record<MlKemAlgorithm, NobleKem>> = {
  'ML-KEM-512': ml_kem512,
  'ML-KEM-768': ml_kem768,
  'ML-KEM-1024': ml_kem1024,
};

const SIGNERS: Readonly<Record<PqcSignatureAlgorithm, NobleSigner>> = {
  'ML-DSA-44': ml_dsa44,
  'ML-DSA-65': ml_dsa65,
  'ML-DSA-87': ml_dsa87,
  'SLH-DSA-SHA2-128S': slh_dsa_sha2_128s,
  'SLH-DSA-SHA2-128F': slh_dsa_sha2_128f,
  'SLH-DSA-SHA2-192S': slh_dsa_sha2_192s,
  'SLH-DSA-SHA2-192F': slh_dsa_sha2_192f,
  'SLH-DSA-SHA2-256S': slh_dsa_sha2_256s,
  'SLH-DSA-SHA2-256F': slh_dsa_sha2_256f,
  'SLH-DSA-SHAKE-128S': slh_dsa_shake_128s,
  'SLH-DSA-SHAKE-128F': slh_dsa_shake_128f,
  'SLH-DSA-SHAKE-192S': slh_dsa_shake_192s,
  'SLH-DSA-SHAKE-192F': slh_dsa_shake_192f,
  'SLH-DSA-SHAKE-256S': slh_dsa_shake_256s,
  'SLH-DSA-SHAKE-256F': slh_dsa_shake_256f,
};

export function isMlKemAlgorithm(algorithm: AlgorithmId): algorithm is MlKemAlgorithm {
  return algorithm in KEMS;
}

export function isPqcSignatureAlgorithm(algorithm: AlgorithmId): algorithm is PqcSignatureAlgorithm {
  return algorithm in SIGNERS;
}

function implementation(algorithm: PqcAlgorithm): NobleKem | NobleSigner {
  return isMlKemAlgorithm(algorithm) ? KEMS[algorithm] : SIGNERS[algorithm];
}

function parameters(algorithm: PqcAlgorithm): PqcParameters {
  const pqc = algorithmInfo(algorithm).pqc;
  if (!pqc) throw new Error(`${algorithm} has no PQC parameters in the catalogue`);
  return pqc;
}

const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function checkLength(
  what: string,
  algorithm: PqcAlgorithm,
  bytes: Buffer,
  expected: number | undefined,
): void {
  if (bytes.length !== expected) {
    const error = what.endsWith('key') ? invalidKey : invalidInput;
    throw error(`An ${algorithm} ${what} is ${expected} bytes, got ${bytes.length}`);
  }
}

/**
 * The key-generation seed length: ML-KEM `d || z` (64 bytes), ML-DSA ξ (32 bytes),
 * SLH-DSA `SK.seed || SK.prf || PK.seed` (3n bytes).
 */
export function pqcSeedBytes(algorithm: PqcAlgorithm): number {
  const seed = implementation(algorithm).lengths.seed;
  if (!seed) throw new Error(`${algorithm} does not declare a seed length`);
  return seed;
}

/** The standard's deterministic key generation from a seed (the KAT entry point). */
export function pqcKeyPairFromSeed(
  algorithm: PqcAlgorithm,
  seed: Buffer,
): { secretKey: Buffer; publicKey: Buffer } {
  const expected = pqcSeedBytes(algorithm);
  if (seed.length !== expected)
    throw invalidInput(`An ${algorithm} seed is ${expected} bytes, got ${seed.length}`);
  const pair = implementation(algorithm).keygen(seed);
  return { secretKey: toBuffer(pair.secretKey), publicKey: toBuffer(pair.publicKey) };
}

export function pqcGenerateKeyPair(algorithm: PqcAlgorithm): { secretKey: Buffer; publicKey: Buffer } {
  const seed = randomBytes(pqcSeedBytes(algorithm));
  try {
    return pqcKeyPairFromSeed(algorithm, seed);
  } finally {
    seed.fill(0);
  }
}

export interface Encapsulation {
  /** Sent to the holder of the private key. */
  readonly ciphertext: Buffer;
  /** 32 bytes, known to both sides afterwards. */
  readonly sharedSecret: Buffer;
}

export interface EncapsulateOptions {
  /** The 32-byte message `m` of ML-KEM.Encaps; only for known-answer tests (random otherwise). */
  readonly randomness?: Buffer;
}

export function mlKemEncapsulate(
  algorithm: MlKemAlgorithm,
  publicKey: Buffer,
  options: EncapsulateOptions = {},
): Encapsulation {
  checkLength('public key', algorithm, publicKey, parameters(algorithm).publicKeyBytes);
  const message = options.randomness ?? randomBytes(32);
  if (message.length !== 32) throw invalidInput('ML-KEM encapsulation randomness is 32 bytes');
  let result: { cipherText: Uint8Array; sharedSecret: Uint8Array };
  try {
    result = KEMS[algorithm].encapsulate(publicKey, message);
  } catch {
    // FIPS 203 §7.2 modulus check: a coefficient of the key is not reduced mod q.
    throw invalidKey(`Not a valid ${algorithm} encapsulation key`);
  } finally {
    if (!options.randomness) message.fill(0);
  }
  return { ciphertext: toBuffer(result.cipherText), sharedSecret: toBuffer(result.sharedSecret) };
}

/**
 * ML-KEM decapsulation. A tampered ciphertext does not fail: by design (implicit
 * rejection) it yields an unrelated secret, so the caller learns only that the
 * protocol above later fails to authenticate.
 */
export function mlKemDecapsulate(algorithm: MlKemAlgorithm, secretKey: Buffer, ciphertext: Buffer): Buffer {
  const pqc = parameters(algorithm);
  checkLength('private key', algorithm, secretKey, pqc.privateKeyBytes);
  checkLength('ciphertext', algorithm, ciphertext, pqc.ciphertextBytes);
  try {
    return toBuffer(KEMS[algorithm].decapsulate(ciphertext, secretKey));
  } catch {
    // FIPS 203 §7.3 input check: the key's embedded hash of its public part is wrong.
    throw invalidKey(`Not a valid ${algorithm} decapsulation key`);
  }
}

export interface PqcSignOptions {
  /** FIPS 204/205 context string, at most 255 bytes; the verifier must pass the same. */
  readonly context?: Buffer;
}

function checkContext(context: Buffer | undefined): void {
  if (context && context.length > 255) throw invalidInput('A signature context is at most 255 bytes');
}

/** Hedged (randomised) pure ML-DSA / SLH-DSA signing of the message itself. */
export function pqcSign(
  algorithm: PqcSignatureAlgorithm,
  secretKey: Buffer,
  message: Buffer,
  options: PqcSignOptions = {},
): Buffer {
  checkLength('private key', algorithm, secretKey, parameters(algorithm).privateKeyBytes);
  checkContext(options.context);
  const signer = SIGNERS[algorithm];
  const extraEntropy = randomBytes(signer.lengths.signRand ?? 32);
  try {
    const signature = signer.sign(message, secretKey, {
      extraEntropy,
      ...(options.context ? { context: options.context } : {}),
    });
    return toBuffer(signature);
  } catch {
    throw invalidKey(`Not a valid ${algorithm} private key`);
  }
}

/** False for a wrong or malformed signature; throws only for a malformed public key. */
export function pqcVerify(
  algorithm: PqcSignatureAlgorithm,
  publicKey: Buffer,
  message: Buffer,
  signature: Buffer,
  options: PqcSignOptions = {},
): boolean {
  const pqc = parameters(algorithm);
  checkLength('public key', algorithm, publicKey, pqc.publicKeyBytes);
  checkContext(options.context);
  if (signature.length !== pqc.signatureBytes) return false;
  try {
    return SIGNERS[algorithm].verify(
      signature,
      message,
      publicKey,
      options.context ? { context: options.context } : {},
    );
  } catch {
    return false;
  }
}

/** How a post-quantum key is given to `pqcImport` (the contract's import formats of these families). */
export type PqcImportFormat = 'seed' | 'expanded' | 'public';

const mlKemRank = (algorithm: MlKemAlgorithm) => (parameters(algorithm).publicKeyBytes - 32) / 384;

/** FIPS 203 §7.2 modulus check: every coefficient of the encapsulation key is reduced mod q. */
function checkMlKemPublic(algorithm: MlKemAlgorithm, publicKey: Buffer): void {
  try {
    KEMS[algorithm].encapsulate(publicKey, new Uint8Array(32));
  } catch {
    throw invalidKey(`Not a valid ${algorithm} encapsulation key (a coefficient is not reduced mod q)`);
  }
}

/**
 * The public key of an expanded private key, after the checks the standards allow: ML-KEM's
 * embedded H(ek) (FIPS 203 §7.3) and modulus check, ML-DSA's embedded tr = H(pk) (FIPS 204),
 * SLH-DSA's PK.root recomputed from SK.seed and PK.seed (FIPS 205 §9.1).
 */
function publicOfExpanded(algorithm: PqcAlgorithm, secretKey: Buffer): Buffer {
  if (isMlKemAlgorithm(algorithm)) {
    const k = mlKemRank(algorithm);
    const ek = secretKey.subarray(384 * k, 768 * k + 32);
    const hash = secretKey.subarray(768 * k + 32, 768 * k + 64);
    if (!createHash('sha3-256').update(ek).digest().equals(hash))
      throw invalidKey('the hash of the encapsulation key inside it does not match');
    checkMlKemPublic(algorithm, Buffer.from(ek));
    return Buffer.from(ek);
  }
  const family = algorithmInfo(algorithm).family;
  if (family === 'ML-DSA') {
    const publicKey = toBuffer(SIGNERS[algorithm].getPublicKey(secretKey));
    const tr = createHash('shake256', { outputLength: 64 }).update(publicKey).digest();
    if (
      !tr.equals(secretKey.subarray(64, 128)) ||
      !publicKey.subarray(0, 32).equals(secretKey.subarray(0, 32))
    )
      throw invalidKey('its public-key hash tr does not match the key it holds');
    return publicKey;
  }
  const n = secretKey.length / 4;
  const derived = toBuffer(SIGNERS[algorithm].keygen(secretKey.subarray(0, 3 * n)).publicKey);
  if (!derived.equals(secretKey.subarray(2 * n)))
    throw invalidKey('PK.root does not match SK.seed and PK.seed');
  return derived;
}

/**
 * A post-quantum key given in one of the standards' encodings, checked: a seed gives the
 * expanded private key and its public key (deterministic key generation); an expanded private
 * key gives its public key after the consistency checks above; a public key is checked (length,
 * ML-KEM modulus check). Throws `invalid-key` errors whose message names no key bytes.
 */
export function pqcImport(
  algorithm: PqcAlgorithm,
  format: PqcImportFormat,
  bytes: Buffer,
): { secretKey?: Buffer; publicKey: Buffer } {
  const pqc = parameters(algorithm);
  if (format === 'seed') {
    const expected = pqcSeedBytes(algorithm);
    if (bytes.length !== expected)
      throw invalidKey(`An ${algorithm} seed is ${expected} bytes, got ${bytes.length}`);
    return pqcKeyPairFromSeed(algorithm, bytes);
  }
  if (format === 'expanded') {
    checkLength('private key', algorithm, bytes, pqc.privateKeyBytes);
    return { secretKey: Buffer.from(bytes), publicKey: publicOfExpanded(algorithm, bytes) };
  }
  checkLength('public key', algorithm, bytes, pqc.publicKeyBytes);
  if (isMlKemAlgorithm(algorithm)) checkMlKemPublic(algorithm, bytes);
  return { publicKey: Buffer.from(bytes) };
}
