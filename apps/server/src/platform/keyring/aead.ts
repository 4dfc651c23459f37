import { createCipheriv, createDecipheriv } from 'node:crypto';
import { nonceBytes } from '../crypto/random.js';

/**
 * AES-256-GCM sealing used for every wrapped secret: the output is
 * base64(version 1 | iv 12 | tag 16 | ciphertext), with caller-given additional data
 * binding the blob to its owner (a domain id, a record id and version...).
 */
const VERSION = 1;

export function aeadSeal(key: Buffer, plaintext: Buffer, aad: string): string {
  if (key.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key');
  // Unique and unpredictable, from the pool of the system's random bytes (one call per 4 KiB).
  const iv = nonceBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ct]).toString('base64');
}

export function aeadOpen(key: Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, 'base64');
  if (raw.length < 29 || raw[0] !== VERSION) throw new Error('Unknown sealed blob format');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 13));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(13, 29));
  return Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]);
}
