import { createHash } from 'node:crypto';
import type { DigestName } from '@ksp/contracts';

/** OpenSSL's names for the digests of the catalogue (SM3 included, through node:crypto). */
export const OPENSSL_DIGEST: Readonly<Record<DigestName, string>> = {
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  SM3: 'sm3',
};

export function digest(name: DigestName, data: Buffer): Buffer {
  return createHash(OPENSSL_DIGEST[name]).update(data).digest();
}
