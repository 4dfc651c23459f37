import { createCipheriv, createDecipheriv } from 'node:crypto';
import { sm2Decrypt, sm2Encrypt, sm2PublicKeyFromPrivate } from '../../../platform/crypto/asymmetric.js';
import {
  SM2_POINT_BYTES,
  SM2_SPKI_BYTES,
  sm2CiphertextFromDer,
  sm2CiphertextToDer,
  sm2PublicKeyFromSpki,
} from '../../../platform/crypto/encoding.js';
import { randomBytes } from '../../../platform/crypto/random.js';
import { bitString, children, readTlv, sequence } from './der.js';
import { PkiError } from './pki-error.js';

/**
 * GM/T 0009-2012 §7.4 `SM2EnvelopedKey`: how a key-management centre hands an SM2
 * encryption key pair to a token (SKF_ImportECCKeyPair), never as a bare private key.
 *
 *   SM2EnvelopedKey ::= SEQUENCE {
 *     symAlgID               AlgorithmIdentifier,  -- SM4-ECB 1.2.156.10197.1.104.1
 *     symEncryptedKey        SM2Cipher,            -- the SM4 key, SM2-encrypted to the token's key
 *     Sm2PublicKey           BIT STRING,           -- 04 || x || y of the enveloped pair
 *     Sm2EncryptedPrivateKey BIT STRING }          -- SM4-ECB(d), 32 bytes, no padding
 */

const SM4_ECB = Buffer.from('300a06082a811ccf55016801', 'hex');

function point(publicKey: Buffer, what: string): Buffer {
  if (publicKey.length === SM2_POINT_BYTES && publicKey[0] === 0x04) return publicKey;
  if (publicKey.length === SM2_SPKI_BYTES) return sm2PublicKeyFromSpki(publicKey);
  throw new PkiError('invalid-input', `The ${what} is not an SM2 SubjectPublicKeyInfo or point`);
}

export interface BuildSm2EnvelopedKeyInput {
  /** The raw 32-byte d of the encryption key pair. */
  readonly encPrivateKey: Buffer;
  /** Its public key (SPKI DER or 65-byte point). */
  readonly encPublicKey: Buffer;
  /** The token's signing public key (SPKI DER or point) that receives the SM4 key. */
  readonly wrappingPublicKey: Buffer;
}

export function buildSm2EnvelopedKey(input: BuildSm2EnvelopedKeyInput): Buffer {
  if (input.encPrivateKey.length !== 32)
    throw new PkiError('invalid-input', 'An SM2 private key is 32 bytes');
  const encPoint = point(input.encPublicKey, 'encryption public key');
  if (!sm2PublicKeyFromPrivate(input.encPrivateKey).equals(encPoint)) {
    throw new PkiError('invalid-input', 'The encryption public key does not match its private key');
  }
  const sm4Key = randomBytes(16);
  try {
    const cipher = createCipheriv('sm4-ecb', sm4Key, null).setAutoPadding(false);
    const encryptedPrivateKey = Buffer.concat([cipher.update(input.encPrivateKey), cipher.final()]);
    const symEncryptedKey = sm2CiphertextToDer(
      sm2Encrypt(point(input.wrappingPublicKey, 'wrapping public key'), sm4Key),
    );
    return sequence(SM4_ECB, symEncryptedKey, bitString(encPoint), bitString(encryptedPrivateKey));
  } finally {
    sm4Key.fill(0);
  }
}

export interface OpenedSm2EnvelopedKey {
  readonly privateKey: Buffer;
  /** 04 || x || y. */
  readonly publicKey: Buffer;
}

/** Unwraps an SM2EnvelopedKey with the token's private key (raw d); checks d against the public key. */
export function openSm2EnvelopedKey(der: Buffer, wrappingPrivateKey: Buffer): OpenedSm2EnvelopedKey {
  const bad = () => new PkiError('invalid-input', 'Not an SM2EnvelopedKey');
  let fields: { start: number; end: number; offset: number; tag: number }[];
  try {
    const outer = readTlv(der, 0);
    if (outer.tag !== 0x30 || outer.end !== der.length) throw bad();
    fields = children(der, outer);
  } catch {
    throw bad();
  }
  const [algorithm, cipherText, publicKey, privateKey] = fields;
  if (!algorithm || !cipherText || !publicKey || !privateKey || fields.length !== 4) throw bad();
  if (!der.subarray(algorithm.offset, algorithm.end).equals(SM4_ECB)) {
    throw new PkiError('unsupported', 'Only SM4-ECB enveloped keys are read');
  }
  if (publicKey.tag !== 0x03 || privateKey.tag !== 0x03) throw bad();
  const sm4Key = sm2Decrypt(
    wrappingPrivateKey,
    sm2CiphertextFromDer(der.subarray(cipherText.offset, cipherText.end)),
  );
  try {
    if (sm4Key.length !== 16) throw bad();
    const encrypted = der.subarray(privateKey.start + 1, privateKey.end);
    const decipher = createDecipheriv('sm4-ecb', sm4Key, null).setAutoPadding(false);
    const d = Buffer.concat([decipher.update(encrypted), decipher.final()]);
    const pub = Buffer.from(der.subarray(publicKey.start + 1, publicKey.end));
    if (d.length !== 32 || !sm2PublicKeyFromPrivate(d).equals(pub)) {
      d.fill(0);
      throw new PkiError('invalid-input', 'The enveloped private key does not match its public key');
    }
    return { privateKey: d, publicKey: pub };
  } finally {
    sm4Key.fill(0);
  }
}
