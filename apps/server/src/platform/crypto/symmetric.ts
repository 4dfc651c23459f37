import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { sm4 } from 'sm-crypto-v2';
import type { AlgorithmId } from '@ksp/contracts';
import { authenticationFailed, invalidInput, invalidKey } from './crypto-error.js';
import { OPENSSL_DIGEST } from './digest.js';
import { nonceBytes, randomBytes } from './random.js';

/**
 * Symmetric primitives: AES-GCM and SM4-GCM (AEAD), AES key wrap (RFC 3394 and
 * RFC 5649), SM4-CBC and HMAC. AES, SM4-CBC and HMAC run in node:crypto (OpenSSL);
 * SM4-GCM runs in sm-crypto-v2 because OpenSSL 3.0 has no `sm4-gcm`.
 */

export const GCM_IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;
export const SM4_KEY_BYTES = 16;
export const SM4_BLOCK_BYTES = 16;

/** An AEAD result: a 96-bit IV, the ciphertext (same length as the plaintext) and a 128-bit tag. */
export interface AeadCiphertext {
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

export interface AeadOptions {
  /** Additional authenticated data: bound to the ciphertext, not encrypted. */
  readonly aad?: Buffer;
  /**
   * A caller-chosen IV, for known-answer tests and interoperability only. Leave it
   * out: a fresh random IV is drawn, and an IV must never repeat under one key.
   */
  readonly iv?: Buffer;
}

const AES_GCM: Readonly<Record<number, 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm'>> = {
  16: 'aes-128-gcm',
  24: 'aes-192-gcm',
  32: 'aes-256-gcm',
};

function aesGcmCipher(key: Buffer) {
  const cipher = AES_GCM[key.length];
  if (!cipher) throw invalidKey(`An AES key must be 16, 24 or 32 bytes, got ${key.length}`);
  return cipher;
}

function checkIv(iv: Buffer): Buffer {
  if (iv.length !== GCM_IV_BYTES)
    throw invalidInput(`A GCM IV must be ${GCM_IV_BYTES} bytes, got ${iv.length}`);
  return iv;
}

function checkSealed(sealed: AeadCiphertext): void {
  checkIv(sealed.iv);
  if (sealed.tag.length !== GCM_TAG_BYTES) {
    throw invalidInput(`A GCM tag must be ${GCM_TAG_BYTES} bytes, got ${sealed.tag.length}`);
  }
}

export function aesGcmEncrypt(key: Buffer, plaintext: Buffer, options: AeadOptions = {}): AeadCiphertext {
  const name = aesGcmCipher(key);
  const iv = checkIv(options.iv ?? nonceBytes(GCM_IV_BYTES));
  const cipher = createCipheriv(name, key, iv, { authTagLength: GCM_TAG_BYTES });
  if (options.aad) cipher.setAAD(options.aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

export function aesGcmDecrypt(key: Buffer, sealed: AeadCiphertext, aad?: Buffer): Buffer {
  const name = aesGcmCipher(key);
  checkSealed(sealed);
  // authTagLength pins the tag to 16 bytes: without it Node accepts a 4-byte tag.
  const decipher = createDecipheriv(name, key, sealed.iv, { authTagLength: GCM_TAG_BYTES });
  decipher.setAuthTag(sealed.tag);
  if (aad) decipher.setAAD(aad);
  const plaintext = decipher.update(sealed.ciphertext);
  try {
    return Buffer.concat([plaintext, decipher.final()]);
  } catch {
    plaintext.fill(0);
    throw authenticationFailed('AES-GCM authentication failed (wrong key, IV, AAD or tampered data)');
  }
}

export function sm4GcmEncrypt(key: Buffer, plaintext: Buffer, options: AeadOptions = {}): AeadCiphertext {
  checkSm4Key(key);
  const iv = checkIv(options.iv ?? randomBytes(GCM_IV_BYTES));
  const result = sm4.encrypt(plaintext, key, {
    mode: 'gcm',
    iv,
    associatedData: options.aad ?? Buffer.alloc(0),
    output: 'array',
    outputTag: true,
  });
  if (!result.tag) throw new Error('sm-crypto-v2 returned no SM4-GCM tag');
  return { iv, ciphertext: Buffer.from(result.output), tag: Buffer.from(result.tag) };
}

export function sm4GcmDecrypt(key: Buffer, sealed: AeadCiphertext, aad?: Buffer): Buffer {
  checkSm4Key(key);
  checkSealed(sealed);
  try {
    // The tag must always be passed: without one, sm-crypto-v2 decrypts unauthenticated.
    const plaintext = sm4.decrypt(sealed.ciphertext, key, {
      mode: 'gcm',
      iv: sealed.iv,
      associatedData: aad ?? Buffer.alloc(0),
      tag: sealed.tag,
      output: 'array',
    });
    return Buffer.from(plaintext);
  } catch {
    throw authenticationFailed('SM4-GCM authentication failed (wrong key, IV, AAD or tampered data)');
  }
}

function checkSm4Key(key: Buffer): void {
  if (key.length !== SM4_KEY_BYTES) throw invalidKey(`An SM4 key must be 16 bytes, got ${key.length}`);
}

function checkSm4Iv(iv: Buffer): void {
  if (iv.length !== SM4_BLOCK_BYTES) throw invalidInput(`An SM4-CBC IV must be 16 bytes, got ${iv.length}`);
}

/** SM4-CBC with PKCS#7 padding (GB/T 32907 block cipher, OpenSSL's `sm4-cbc`). */
export function sm4CbcEncrypt(key: Buffer, iv: Buffer, plaintext: Buffer): Buffer {
  checkSm4Key(key);
  checkSm4Iv(iv);
  const cipher = createCipheriv('sm4-cbc', key, iv);
  return Buffer.concat([cipher.update(plaintext), cipher.final()]);
}

export function sm4CbcDecrypt(key: Buffer, iv: Buffer, ciphertext: Buffer): Buffer {
  checkSm4Key(key);
  checkSm4Iv(iv);
  if (ciphertext.length === 0 || ciphertext.length % SM4_BLOCK_BYTES !== 0) {
    throw invalidInput('SM4-CBC ciphertext must be a non-empty multiple of 16 bytes');
  }
  const decipher = createDecipheriv('sm4-cbc', key, iv);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    // CBC has no integrity: a bad padding byte is all we can see of a wrong key.
    throw authenticationFailed('SM4-CBC decryption failed (bad padding: wrong key, IV or data)');
  }
}

/* AES key wrap. node:crypto needs the RFC's initial value passed as the IV. */

const RFC3394_IV = Buffer.from('a6a6a6a6a6a6a6a6', 'hex');
const RFC5649_IV = Buffer.from('a65959a6', 'hex');

const KEK_BITS: Readonly<Record<number, number>> = { 16: 128, 24: 192, 32: 256 };

function wrapCipher(kek: Buffer, padded: boolean): string {
  const bits = KEK_BITS[kek.length];
  if (!bits) throw invalidKey(`An AES key-encryption key must be 16, 24 or 32 bytes, got ${kek.length}`);
  return `id-aes${bits}-wrap${padded ? '-pad' : ''}`;
}

function runWrap(kek: Buffer, input: Buffer, padded: boolean, wrap: boolean): Buffer {
  const name = wrapCipher(kek, padded);
  const iv = padded ? RFC5649_IV : RFC3394_IV;
  const cipher = wrap ? createCipheriv(name, kek, iv) : createDecipheriv(name, kek, iv);
  try {
    // OpenSSL wraps and unwraps the whole input inside update(); the check fails there.
    return Buffer.concat([cipher.update(input), cipher.final()]);
  } catch {
    throw authenticationFailed(
      'AES key unwrap failed: integrity check mismatch (wrong key-encryption key or data)',
    );
  }
}

/** RFC 3394 AES key wrap: key data of at least 16 bytes in 8-byte blocks; output is 8 bytes longer. */
export function aesKeyWrap(kek: Buffer, keyData: Buffer): Buffer {
  if (keyData.length < 16 || keyData.length % 8 !== 0) {
    throw invalidInput(
      'RFC 3394 key wrap needs key data of 16 bytes or more, in multiples of 8 (use the padded wrap)',
    );
  }
  return runWrap(kek, keyData, false, true);
}

export function aesKeyUnwrap(kek: Buffer, wrapped: Buffer): Buffer {
  if (wrapped.length < 24 || wrapped.length % 8 !== 0) {
    throw invalidInput('An RFC 3394 wrapped key is 24 bytes or more, in multiples of 8');
  }
  return runWrap(kek, wrapped, false, false);
}

/** RFC 5649 AES key wrap with padding: any key data from 1 byte. */
export function aesKeyWrapPadded(kek: Buffer, keyData: Buffer): Buffer {
  if (keyData.length === 0) throw invalidInput('RFC 5649 key wrap needs at least 1 byte of key data');
  return runWrap(kek, keyData, true, true);
}

export function aesKeyUnwrapPadded(kek: Buffer, wrapped: Buffer): Buffer {
  if (wrapped.length < 16 || wrapped.length % 8 !== 0) {
    throw invalidInput('An RFC 5649 wrapped key is 16 bytes or more, in multiples of 8');
  }
  return runWrap(kek, wrapped, true, false);
}

/* HMAC */

export type HmacDigest = 'SHA-256' | 'SHA-384' | 'SHA-512';

export function hmac(digestName: HmacDigest, key: Buffer, data: Buffer): Buffer {
  if (key.length === 0) throw invalidKey('An HMAC key must not be empty');
  return createHmac(OPENSSL_DIGEST[digestName], key).update(data).digest();
}

/** Constant-time comparison of a full-length MAC; a truncated MAC is refused. */
export function hmacVerify(digestName: HmacDigest, key: Buffer, data: Buffer, mac: Buffer): boolean {
  const expected = hmac(digestName, key, data);
  return mac.length === expected.length && timingSafeEqual(mac, expected);
}

/* By algorithm id: what a key of the catalogue does with its symmetric material. */

export type CipherAlgorithm = Extract<AlgorithmId, 'AES-128' | 'AES-192' | 'AES-256' | 'SM4'>;
export type MacAlgorithm = Extract<AlgorithmId, `HMAC-${string}`>;

const CIPHER_KEY_BYTES: Readonly<Record<CipherAlgorithm, number>> = {
  'AES-128': 16,
  'AES-192': 24,
  'AES-256': 32,
  SM4: 16,
};

const MAC_DIGEST: Readonly<Record<MacAlgorithm, HmacDigest>> = {
  'HMAC-SHA256': 'SHA-256',
  'HMAC-SHA384': 'SHA-384',
  'HMAC-SHA512': 'SHA-512',
};

export function isCipherAlgorithm(algorithm: AlgorithmId): algorithm is CipherAlgorithm {
  return algorithm in CIPHER_KEY_BYTES;
}

export function isMacAlgorithm(algorithm: AlgorithmId): algorithm is MacAlgorithm {
  return algorithm in MAC_DIGEST;
}

function checkCipherKey(algorithm: CipherAlgorithm, key: Buffer): void {
  const expected = CIPHER_KEY_BYTES[algorithm];
  if (key.length !== expected)
    throw invalidKey(`${algorithm} needs a ${expected}-byte key, got ${key.length}`);
}

/** Authenticated encryption with a catalogue key: AES-*-GCM or SM4-GCM. */
export function symmetricEncrypt(
  algorithm: CipherAlgorithm,
  key: Buffer,
  plaintext: Buffer,
  options: AeadOptions = {},
): AeadCiphertext {
  checkCipherKey(algorithm, key);
  return algorithm === 'SM4'
    ? sm4GcmEncrypt(key, plaintext, options)
    : aesGcmEncrypt(key, plaintext, options);
}

export function symmetricDecrypt(
  algorithm: CipherAlgorithm,
  key: Buffer,
  sealed: AeadCiphertext,
  aad?: Buffer,
): Buffer {
  checkCipherKey(algorithm, key);
  return algorithm === 'SM4' ? sm4GcmDecrypt(key, sealed, aad) : aesGcmDecrypt(key, sealed, aad);
}

export function macGenerate(algorithm: MacAlgorithm, key: Buffer, data: Buffer): Buffer {
  return hmac(MAC_DIGEST[algorithm], key, data);
}

export function macVerify(algorithm: MacAlgorithm, key: Buffer, data: Buffer, mac: Buffer): boolean {
  return hmacVerify(MAC_DIGEST[algorithm], key, data, mac);
}

/**
 * Key check value: the first 3 bytes (upper-case hex) of the zero block enciphered
 * in ECB mode, the usual way to compare a symmetric key without revealing it.
 */
export function keyCheckValue(algorithm: CipherAlgorithm, key: Buffer): string {
  checkCipherKey(algorithm, key);
  const name = algorithm === 'SM4' ? 'sm4-ecb' : `aes-${key.length * 8}-ecb`;
  const cipher = createCipheriv(name, key, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.alloc(16)), cipher.final()])
    .subarray(0, 3)
    .toString('hex')
    .toUpperCase();
}
