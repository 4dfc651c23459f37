import { randomBytes as systemRandomBytes } from 'node:crypto';

/** The largest single request; key material, IVs and seeds are far smaller. */
const MAX_LENGTH = 64 * 1024;

/**
 * The one source of randomness for key material, seeds, IVs and nonces in this
 * folder. Today it is the operating system's CSPRNG (through OpenSSL); the
 * quantum entropy source (MODULES.md §4.8) will be mixed in here, never used raw,
 * so every caller picks it up without changing.
 *
 * RSA prime generation is the one exception: OpenSSL draws those bits from its
 * own DRBG inside `generateKeyPair`, which Node gives no way to feed.
 */
export function randomBytes(length: number): Buffer {
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_LENGTH) {
    throw new RangeError(`randomBytes length must be an integer from 0 to ${MAX_LENGTH}, got ${length}`);
  }
  return systemRandomBytes(length);
}
