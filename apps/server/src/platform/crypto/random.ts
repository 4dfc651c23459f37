import { randomBytes as systemRandomBytes } from 'node:crypto';
import { mixEntropyInto } from './entropy.js';

/** The largest single request; key material, IVs and seeds are far smaller. */
const MAX_LENGTH = 64 * 1024;

/**
 * The one source of randomness for key material, seeds, IVs and nonces in this
 * folder: the operating system's CSPRNG (through OpenSSL), XORed with the pool of the
 * quantum entropy source (docs/modules.md#quantum-entropy-source, `entropy.ts`) while that source is healthy.
 * The source's bytes are never used raw, and the output is never weaker than the OS's.
 *
 * RSA prime generation is the one exception: OpenSSL draws those bits from its
 * own DRBG inside `generateKeyPair`, which Node gives no way to feed.
 */
export function randomBytes(length: number): Buffer {
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_LENGTH) {
    throw new RangeError(`randomBytes length must be an integer from 0 to ${MAX_LENGTH}, got ${length}`);
  }
  return mixEntropyInto(systemRandomBytes(length));
}

/** Bytes drawn from the system at a time for `nonceBytes`. */
const NONCE_POOL_BYTES = 4096;
let noncePool: Buffer = Buffer.alloc(0);
let nonceOffset = 0;

/**
 * Random values that are public and must only be unpredictable and unique: GCM IVs,
 * record ids. They come from `randomBytes` 4 KiB at a time, since each call to the
 * system costs more than a whole AES-GCM operation. Each byte is handed out once.
 * Never for key material or seeds: those call `randomBytes`.
 */
export function nonceBytes(length: number): Buffer {
  if (length > 256) return randomBytes(length);
  if (nonceOffset + length > noncePool.length) {
    noncePool = randomBytes(NONCE_POOL_BYTES);
    nonceOffset = 0;
  }
  const out = noncePool.subarray(nonceOffset, nonceOffset + length);
  nonceOffset += length;
  return out;
}

/**
 * A uniform integer in [1, limit − 1] drawn from `randomBytes` by rejection
 * sampling (an elliptic-curve private scalar when `limit` is the group order).
 */
export function randomScalar(limit: bigint): bigint {
  if (limit <= 2n) throw new RangeError('randomScalar needs a limit above 2');
  const bits = limit.toString(2).length;
  const length = Math.ceil(bits / 8);
  const topMask = 0xff >> (length * 8 - bits);
  for (;;) {
    const bytes = randomBytes(length);
    bytes[0] = (bytes[0] ?? 0) & topMask;
    const candidate = BigInt(`0x${bytes.toString('hex')}`);
    bytes.fill(0);
    if (candidate >= 1n && candidate < limit) return candidate;
  }
}
