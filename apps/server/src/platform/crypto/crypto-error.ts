/**
 * Why a primitive refused its input. Services map these to contract codes; the
 * message is for logs and developers (it never contains key material).
 * - `invalid-key`: wrong length, wrong encoding or a key for another algorithm;
 * - `invalid-input`: a malformed IV, ciphertext, envelope or parameter;
 * - `authentication-failed`: a tag, checksum or integrity check did not match;
 * - `unsupported`: the algorithm does not offer this operation.
 */
export type CryptoErrorCode = 'invalid-key' | 'invalid-input' | 'authentication-failed' | 'unsupported';

export class CryptoError extends Error {
  constructor(
    readonly code: CryptoErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CryptoError';
  }
}

export const invalidKey = (message: string) => new CryptoError('invalid-key', message);
export const invalidInput = (message: string) => new CryptoError('invalid-input', message);
export const authenticationFailed = (message: string) => new CryptoError('authentication-failed', message);
export const unsupported = (message: string) => new CryptoError('unsupported', message);
