import {
  type KeyObject,
  constants,
  createPrivateKey,
  createPublicKey,
  sign as nodeSign,
  verify as nodeVerify,
  privateDecrypt,
  publicEncrypt,
  timingSafeEqual,
} from 'node:crypto';
import { kdf, sm2 } from 'sm-crypto-v2';
import { type AlgorithmId, type EcCurve, algorithmInfo } from '@ksp/contracts';
import { authenticationFailed, invalidInput, invalidKey, unsupported } from './crypto-error.js';
import { OPENSSL_DIGEST, digest } from './digest.js';
import {
  SM2_POINT_BYTES,
  SM2_SPKI_BYTES,
  bigIntToBytes,
  bytesToBigInt,
  decodeDerSignature,
  encodeDerSignature,
  sm2PublicKeyFromSpki,
  sm2PublicKeyToSpki,
} from './encoding.js';
import {
  type PqcSignOptions,
  isMlKemAlgorithm,
  isPqcSignatureAlgorithm,
  pqcSign,
  pqcVerify,
} from './post-quantum.js';
import { randomScalar } from './random.js';

/**
 * Classical public-key primitives and the by-algorithm `sign` / `verify` /
 * `asymmetricEncrypt` / `asymmetricDecrypt` entry points (PQC ones come from
 * post-quantum.ts). RSA, ECDSA and Ed25519 run in node:crypto; SM2 runs on
 * sm-crypto-v2's curve, KDF and signer, because OpenSSL 3.0 (and so Node) signs
 * SM2 with an empty distinguishing ID, and Node cannot encrypt with SM2 at all.
 *
 * Keys: private keys are PKCS#8 DER (SM2: the raw 32-byte scalar), public keys are
 * SubjectPublicKeyInfo DER (SM2 also accepts the 65-byte uncompressed point). The
 * node:crypto operations (RSA, ECDSA, Ed25519) also take the private key already parsed
 * by `parsePrivateKey`: reading the DER costs more than the signature it serves.
 */

export type RsaAlgorithm = Extract<AlgorithmId, `RSA-${string}`>;
export type EcAlgorithm = Extract<AlgorithmId, `EC-${string}`>;
export type RsaSignatureScheme = 'PSS' | 'PKCS1-v1_5';
/** ECDSA and SM2 signature encodings: ASN.1 DER `SEQUENCE { r, s }`, or IEEE P1363 `r || s`. */
export type DsaSignatureFormat = 'der' | 'p1363';
/** A private key as stored (see above), or for RSA, ECDSA and Ed25519 its parsed key object. */
export type PrivateKeyInput = Buffer | KeyObject;

/** OpenSSL's name, the group order n and the scalar length of each catalogue curve. */
export const EC_CURVES: Readonly<
  Record<EcCurve, { openSslName: string; order: bigint; scalarBytes: number }>
> = {
  'P-256': {
    openSslName: 'prime256v1',
    order: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
    scalarBytes: 32,
  },
  'P-384': {
    openSslName: 'secp384r1',
    order:
      0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
    scalarBytes: 48,
  },
  'P-521': {
    openSslName: 'secp521r1',
    order:
      0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
    scalarBytes: 66,
  },
  secp256k1: {
    openSslName: 'secp256k1',
    order: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
    scalarBytes: 32,
  },
};

function loadPrivateKey(der: Buffer, what: string): KeyObject {
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    throw invalidKey(`The ${what} private key is not PKCS#8 DER`);
  }
}

/**
 * The key object of a PKCS#8 private key, for callers that use it more than once. Which
 * algorithm it serves is checked where it is used, as for DER.
 */
export const parsePrivateKey = (der: Buffer): KeyObject => loadPrivateKey(der, 'given');

function loadPublicKey(der: Buffer, what: string): KeyObject {
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw invalidKey(`The ${what} public key is not SubjectPublicKeyInfo DER`);
  }
}

function checkKeyMatches(algorithm: AlgorithmId, key: KeyObject): KeyObject {
  const info = algorithmInfo(algorithm);
  const details = key.asymmetricKeyDetails ?? {};
  const matches =
    info.family === 'RSA'
      ? key.asymmetricKeyType === 'rsa' && details.modulusLength === info.sizeBits
      : info.family === 'EC'
        ? key.asymmetricKeyType === 'ec' &&
          !!info.curve &&
          details.namedCurve === EC_CURVES[info.curve].openSslName
        : info.family === 'ED25519' && key.asymmetricKeyType === 'ed25519';
  if (!matches) throw invalidKey(`The key is not an ${algorithm} key`);
  return key;
}

function privateKeyFor(algorithm: AlgorithmId, key: PrivateKeyInput): KeyObject {
  if (Buffer.isBuffer(key)) return checkKeyMatches(algorithm, loadPrivateKey(key, algorithm));
  if (key.type !== 'private') throw invalidKey(`The ${algorithm} key object is not a private key`);
  return checkKeyMatches(algorithm, key);
}
const publicKeyFor = (algorithm: AlgorithmId, der: Buffer) =>
  checkKeyMatches(algorithm, loadPublicKey(der, algorithm));

/* RSA: OAEP with SHA-256 (and MGF1-SHA-256); PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt, or PKCS#1 v1.5. */

const OAEP_HASH_BYTES = 32;

export function rsaOaepMaxPlaintext(algorithm: RsaAlgorithm): number {
  return algorithmInfo(algorithm).sizeBits / 8 - 2 * OAEP_HASH_BYTES - 2;
}

export function rsaOaepEncrypt(
  algorithm: RsaAlgorithm,
  publicKey: Buffer,
  plaintext: Buffer,
  label?: Buffer,
): Buffer {
  const key = publicKeyFor(algorithm, publicKey);
  const max = rsaOaepMaxPlaintext(algorithm);
  if (plaintext.length > max) {
    throw invalidInput(`${algorithm} OAEP-SHA256 encrypts at most ${max} bytes, got ${plaintext.length}`);
  }
  return publicEncrypt(
    {
      key,
      padding: constants.RSA_PKCS1_OAEP_PADDING,
      oaepHash: 'sha256',
      ...(label ? { oaepLabel: label } : {}),
    },
    plaintext,
  );
}

export function rsaOaepDecrypt(
  algorithm: RsaAlgorithm,
  privateKey: PrivateKeyInput,
  ciphertext: Buffer,
  label?: Buffer,
): Buffer {
  const key = privateKeyFor(algorithm, privateKey);
  if (ciphertext.length !== algorithmInfo(algorithm).sizeBits / 8) {
    throw invalidInput(`An ${algorithm} ciphertext is ${algorithmInfo(algorithm).sizeBits / 8} bytes`);
  }
  try {
    return privateDecrypt(
      {
        key,
        padding: constants.RSA_PKCS1_OAEP_PADDING,
        oaepHash: 'sha256',
        ...(label ? { oaepLabel: label } : {}),
      },
      ciphertext,
    );
  } catch {
    throw authenticationFailed(`${algorithm} OAEP decryption failed (wrong key, label or tampered data)`);
  }
}

function rsaPadding(scheme: RsaSignatureScheme) {
  return scheme === 'PSS'
    ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
    : { padding: constants.RSA_PKCS1_PADDING };
}

export function rsaSign(
  algorithm: RsaAlgorithm,
  privateKey: PrivateKeyInput,
  data: Buffer,
  scheme: RsaSignatureScheme = 'PSS',
): Buffer {
  const key = privateKeyFor(algorithm, privateKey);
  return nodeSign('sha256', data, { key, ...rsaPadding(scheme) });
}

/**
 * PSS verification takes only the salt length signing uses, the digest length (32 bytes), as
 * RFC 8017 treats it: a parameter of the scheme, not something read from the signature
 * (Wycheproof's `s_len changed` vectors are invalid signatures).
 */
export function rsaVerify(
  algorithm: RsaAlgorithm,
  publicKey: Buffer,
  data: Buffer,
  signature: Buffer,
  scheme: RsaSignatureScheme = 'PSS',
): boolean {
  const key = publicKeyFor(algorithm, publicKey);
  const padding = rsaPadding(scheme);
  try {
    return nodeVerify('sha256', data, { key, ...padding }, signature);
  } catch {
    return false;
  }
}

/* ECDSA with the curve's digest (P-256/secp256k1 SHA-256, P-384 SHA-384, P-521 SHA-512); DER signatures. */

function ecDigest(algorithm: EcAlgorithm): string {
  const name = algorithmInfo(algorithm).digest;
  if (!name) throw new Error(`${algorithm} has no digest in the catalogue`);
  return OPENSSL_DIGEST[name];
}

const dsaEncoding = (format: DsaSignatureFormat) => (format === 'p1363' ? 'ieee-p1363' : 'der');

export function ecdsaSign(
  algorithm: EcAlgorithm,
  privateKey: PrivateKeyInput,
  data: Buffer,
  format: DsaSignatureFormat = 'der',
): Buffer {
  const key = privateKeyFor(algorithm, privateKey);
  return nodeSign(ecDigest(algorithm), data, { key, dsaEncoding: dsaEncoding(format) });
}

/** The curve order's length in bytes: each of r and s in a P1363 signature. */
const ecScalarBytes = (algorithm: EcAlgorithm) => {
  const curve = algorithmInfo(algorithm).curve;
  if (!curve) throw new Error(`${algorithm} has no curve in the catalogue`);
  return EC_CURVES[curve].scalarBytes;
};

/** False for a signature that does not match or is malformed (OpenSSL reads DER strictly). */
export function ecdsaVerify(
  algorithm: EcAlgorithm,
  publicKey: Buffer,
  data: Buffer,
  signature: Buffer,
  format: DsaSignatureFormat = 'der',
): boolean {
  const key = publicKeyFor(algorithm, publicKey);
  if (format === 'p1363' && signature.length !== 2 * ecScalarBytes(algorithm)) return false;
  try {
    return nodeVerify(ecDigest(algorithm), data, { key, dsaEncoding: dsaEncoding(format) }, signature);
  } catch {
    return false;
  }
}

/* Ed25519 (RFC 8032, pure): 64-byte signatures. */

export function ed25519Sign(privateKey: PrivateKeyInput, data: Buffer): Buffer {
  return nodeSign(null, data, privateKeyFor('ED25519', privateKey));
}

export function ed25519Verify(publicKey: Buffer, data: Buffer, signature: Buffer): boolean {
  const key = publicKeyFor('ED25519', publicKey);
  if (signature.length !== 64) return false;
  try {
    return nodeVerify(null, data, key, signature);
  } catch {
    return false;
  }
}

/* SM2 (GB/T 32918): signatures with SM3 and the GM/T 0009 default ID; encryption as C1 || C3 || C2. */

/** The GM/T 0009 default distinguishing ID; OpenSSL needs `-pkeyopt distid:1234567812345678` to match. */
export const SM2_DEFAULT_USER_ID = '1234567812345678';
export const SM2_ORDER = 0xfffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123n;
export const SM2_PRIVATE_KEY_BYTES = 32;
const SM3_BYTES = 32;

/** The private scalar d, which GB/T 32918.1 requires to lie in [1, n − 2]. */
function sm2Scalar(privateKey: Buffer): string {
  if (privateKey.length !== SM2_PRIVATE_KEY_BYTES) {
    throw invalidKey(`An SM2 private key is the raw 32-byte scalar, got ${privateKey.length} bytes`);
  }
  const d = bytesToBigInt(privateKey);
  if (d < 1n || d > SM2_ORDER - 2n) throw invalidKey('The SM2 private scalar is out of range [1, n-2]');
  return privateKey.toString('hex');
}

/** The uncompressed point (hex, 04 || x || y) of an SM2 public key given as SPKI DER or as the point. */
function sm2PointHex(publicKey: Buffer): string {
  const point =
    publicKey.length === SM2_SPKI_BYTES
      ? sm2PublicKeyFromSpki(publicKey)
      : publicKey.length === SM2_POINT_BYTES && publicKey[0] === 0x04
        ? publicKey
        : null;
  if (!point)
    throw invalidKey('An SM2 public key is SubjectPublicKeyInfo DER or the 65-byte uncompressed point');
  const hex = point.toString('hex');
  let onCurve: boolean;
  try {
    onCurve = sm2.verifyPublicKey(hex);
  } catch {
    onCurve = false;
  }
  if (!onCurve) throw invalidKey('The SM2 public key is not a point on the curve');
  return hex;
}

/** The SPKI DER of an SM2 public key (SPKI or point), refused unless the point is on the curve. */
export function sm2CheckedPublicKey(publicKey: Buffer): Buffer {
  return sm2PublicKeyToSpki(Buffer.from(sm2PointHex(publicKey), 'hex'));
}

/** `04 || x || y` for the private scalar d (the public key is d·G). */
export function sm2PublicKeyFromPrivate(privateKey: Buffer): Buffer {
  return Buffer.from(sm2.getPublicKeyFromPrivateKey(sm2Scalar(privateKey)), 'hex');
}

function checkUserId(userId: string): string {
  // ENTL is a 16-bit count of bits.
  if (Buffer.byteLength(userId, 'utf8') > 8191) throw invalidInput('An SM2 user ID is at most 8191 bytes');
  return userId;
}

export interface Sm2SignOptions {
  /** Distinguishing ID hashed into Z; defaults to `1234567812345678`. */
  readonly userId?: string;
  /** DER (default) or r || s (32 bytes each). */
  readonly format?: DsaSignatureFormat;
  /** The signer's public key (SPKI or point), saving its derivation from the private key. */
  readonly publicKey?: Buffer;
}

/** SM2 signature over SM3(Z || data): DER `SEQUENCE { r, s }`, as GM/T 0009 and OpenSSL write it. */
export function sm2Sign(privateKey: Buffer, data: Buffer, options: Sm2SignOptions = {}): Buffer {
  const d = sm2Scalar(privateKey);
  const publicKey = options.publicKey
    ? sm2PointHex(options.publicKey)
    : sm2PublicKeyFromPrivate(privateKey).toString('hex');
  // The per-signature secret k comes from random.ts; the library is handed k and x1 of k·G.
  const k = randomScalar(SM2_ORDER);
  const kG = sm2.getPublicKeyFromPrivateKey(bigIntToBytes(k, 32).toString('hex'));
  const x1 = BigInt(`0x${kG.slice(2, 66)}`);
  const rs = sm2.doSignature(data, d, {
    hash: true,
    der: false,
    publicKey,
    userId: checkUserId(options.userId ?? SM2_DEFAULT_USER_ID),
    pointPool: [{ k, x1 }],
  });
  if (options.format === 'p1363') return Buffer.from(rs, 'hex');
  return encodeDerSignature(BigInt(`0x${rs.slice(0, 64)}`), BigInt(`0x${rs.slice(64)}`));
}

export interface Sm2VerifyOptions {
  readonly userId?: string;
  readonly format?: DsaSignatureFormat;
}

/** r and s of an SM2 signature in `format`, or null when it is malformed. */
function sm2SignatureValues(signature: Buffer, format: DsaSignatureFormat): { r: bigint; s: bigint } | null {
  if (format === 'p1363') {
    if (signature.length !== 64) return null;
    return { r: bytesToBigInt(signature.subarray(0, 32)), s: bytesToBigInt(signature.subarray(32)) };
  }
  try {
    return decodeDerSignature(signature);
  } catch {
    return null;
  }
}

export function sm2Verify(
  publicKey: Buffer,
  data: Buffer,
  signature: Buffer,
  options: Sm2VerifyOptions = {},
): boolean {
  const point = sm2PointHex(publicKey);
  const userId = checkUserId(options.userId ?? SM2_DEFAULT_USER_ID);
  const values = sm2SignatureValues(signature, options.format ?? 'der');
  if (!values) return false;
  const { r, s } = values;
  if (r < 1n || r >= SM2_ORDER || s < 1n || s >= SM2_ORDER) return false;
  const rs = bigIntToBytes(r, 32).toString('hex') + bigIntToBytes(s, 32).toString('hex');
  try {
    return sm2.doVerifySignature(data, rs, point, { hash: true, der: false, userId });
  } catch {
    return false;
  }
}

/** x2 || y2 of the shared point, from sm-crypto-v2's scalar multiplication (which rejects off-curve points). */
function sm2SharedCoordinates(scalarHex: string, pointHex: string): { x2: Buffer; y2: Buffer } {
  const shared = Buffer.from(sm2.ecdh(scalarHex, pointHex, false));
  return { x2: shared.subarray(1, 33), y2: shared.subarray(33, 65) };
}

function xor(data: Buffer, stream: Uint8Array): Buffer {
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] ?? 0) ^ (stream[i] ?? 0);
  return out;
}

const allZero = (bytes: Uint8Array) => bytes.every((byte) => byte === 0);

/**
 * SM2 public-key encryption (GB/T 32918.4): C1 (65-byte point) || C3 (SM3, 32 bytes)
 * || C2 (as long as the plaintext). Built on sm-crypto-v2's curve and KDF, with k from
 * random.ts; its own `doDecrypt` cannot tell a failed check from an empty message.
 */
export function sm2Encrypt(publicKey: Buffer, plaintext: Buffer): Buffer {
  const point = sm2PointHex(publicKey);
  if (plaintext.length === 0) throw invalidInput('SM2 cannot encrypt an empty message');
  for (;;) {
    const k = bigIntToBytes(randomScalar(SM2_ORDER), 32).toString('hex');
    const c1 = Buffer.from(sm2.getPublicKeyFromPrivateKey(k), 'hex');
    const { x2, y2 } = sm2SharedCoordinates(k, point);
    const t = kdf(Buffer.concat([x2, y2]), plaintext.length);
    if (allZero(t)) continue; // GB/T 32918.4 A5: draw another k
    const c2 = xor(plaintext, t);
    const c3 = digest('SM3', Buffer.concat([x2, plaintext, y2]));
    return Buffer.concat([c1, c3, c2]);
  }
}

export function sm2Decrypt(privateKey: Buffer, ciphertext: Buffer): Buffer {
  const d = sm2Scalar(privateKey);
  if (ciphertext.length <= SM2_POINT_BYTES + SM3_BYTES || ciphertext[0] !== 0x04) {
    throw invalidInput(
      'An SM2 ciphertext is C1 (65 bytes, 04 || x || y) || C3 (32 bytes) || C2 (1 byte or more)',
    );
  }
  const c1 = ciphertext.subarray(0, SM2_POINT_BYTES);
  const c3 = ciphertext.subarray(SM2_POINT_BYTES, SM2_POINT_BYTES + SM3_BYTES);
  const c2 = ciphertext.subarray(SM2_POINT_BYTES + SM3_BYTES);
  let shared: { x2: Buffer; y2: Buffer };
  try {
    shared = sm2SharedCoordinates(d, c1.toString('hex'));
  } catch {
    throw authenticationFailed('SM2 decryption failed: C1 is not a point on the curve');
  }
  const t = kdf(Buffer.concat([shared.x2, shared.y2]), c2.length);
  if (allZero(t)) throw authenticationFailed('SM2 decryption failed');
  const plaintext = xor(c2, t);
  const u = digest('SM3', Buffer.concat([shared.x2, plaintext, shared.y2]));
  if (!timingSafeEqual(u, c3)) {
    plaintext.fill(0);
    throw authenticationFailed('SM2 decryption failed (wrong key or tampered data)');
  }
  return plaintext;
}

/* By algorithm id. */

export interface SignOptions extends PqcSignOptions {
  /** RSA only; PSS by default. */
  readonly rsaScheme?: RsaSignatureScheme;
  /** ECDSA and SM2 only; DER by default. */
  readonly signatureFormat?: DsaSignatureFormat;
  /** SM2 only; the GM/T 0009 default ID otherwise. */
  readonly sm2UserId?: string;
}

function sm2Options(options: SignOptions) {
  return {
    ...(options.sm2UserId === undefined ? {} : { userId: options.sm2UserId }),
    ...(options.signatureFormat ? { format: options.signatureFormat } : {}),
  };
}

const isRsa = (algorithm: AlgorithmId): algorithm is RsaAlgorithm =>
  algorithmInfo(algorithm).family === 'RSA';
const isEc = (algorithm: AlgorithmId): algorithm is EcAlgorithm => algorithmInfo(algorithm).family === 'EC';

/** Whether `algorithm`'s private key runs through node:crypto, and so can be given parsed. */
export const takesKeyObject = (algorithm: AlgorithmId): boolean =>
  isRsa(algorithm) || isEc(algorithm) || algorithm === 'ED25519';

/** SM2 and the post-quantum algorithms compute on the stored bytes themselves. */
function bytesOf(algorithm: AlgorithmId, key: PrivateKeyInput): Buffer {
  if (!Buffer.isBuffer(key)) throw invalidKey(`An ${algorithm} private key is given as its stored bytes`);
  return key;
}

/** Signs with the private material a key of `algorithm` stores (see generate.ts for the encodings). */
export function sign(
  algorithm: AlgorithmId,
  privateKey: PrivateKeyInput,
  data: Buffer,
  options: SignOptions = {},
): Buffer {
  if (isRsa(algorithm)) return rsaSign(algorithm, privateKey, data, options.rsaScheme);
  if (isEc(algorithm)) return ecdsaSign(algorithm, privateKey, data, options.signatureFormat);
  if (algorithm === 'ED25519') return ed25519Sign(privateKey, data);
  if (algorithm === 'SM2') return sm2Sign(bytesOf(algorithm, privateKey), data, sm2Options(options));
  if (isPqcSignatureAlgorithm(algorithm))
    return pqcSign(algorithm, bytesOf(algorithm, privateKey), data, options);
  throw unsupported(`${algorithm} keys do not sign`);
}

export function verify(
  algorithm: AlgorithmId,
  publicKey: Buffer,
  data: Buffer,
  signature: Buffer,
  options: SignOptions = {},
): boolean {
  if (isRsa(algorithm)) return rsaVerify(algorithm, publicKey, data, signature, options.rsaScheme);
  if (isEc(algorithm)) return ecdsaVerify(algorithm, publicKey, data, signature, options.signatureFormat);
  if (algorithm === 'ED25519') return ed25519Verify(publicKey, data, signature);
  if (algorithm === 'SM2') return sm2Verify(publicKey, data, signature, sm2Options(options));
  if (isPqcSignatureAlgorithm(algorithm)) return pqcVerify(algorithm, publicKey, data, signature, options);
  throw unsupported(`${algorithm} keys do not verify signatures`);
}

/** Public-key encryption: RSA-OAEP-SHA256 or SM2 (C1C3C2). ML-KEM encapsulates instead (post-quantum.ts). */
export function asymmetricEncrypt(algorithm: AlgorithmId, publicKey: Buffer, plaintext: Buffer): Buffer {
  if (isRsa(algorithm)) return rsaOaepEncrypt(algorithm, publicKey, plaintext);
  if (algorithm === 'SM2') return sm2Encrypt(publicKey, plaintext);
  throw unsupported(
    isMlKemAlgorithm(algorithm)
      ? `${algorithm} keys encapsulate a shared secret; they do not encrypt data`
      : `${algorithm} keys do not encrypt with a public key`,
  );
}

export function asymmetricDecrypt(
  algorithm: AlgorithmId,
  privateKey: PrivateKeyInput,
  ciphertext: Buffer,
): Buffer {
  if (isRsa(algorithm)) return rsaOaepDecrypt(algorithm, privateKey, ciphertext);
  if (algorithm === 'SM2') return sm2Decrypt(bytesOf(algorithm, privateKey), ciphertext);
  throw unsupported(`${algorithm} keys do not decrypt with a private key`);
}
