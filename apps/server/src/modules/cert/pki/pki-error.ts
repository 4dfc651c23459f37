/**
 * Why the PKI engine refused its input. The service maps `code` to a contract code;
 * `details` names the offending entry (a SAN value, a certificate's subject), never
 * key material.
 */
export type PkiErrorCode =
  | 'invalid-name'
  | 'invalid-san'
  | 'invalid-csr'
  | 'invalid-pem'
  | 'invalid-certificate'
  | 'invalid-ocsp-request'
  | 'invalid-input'
  | 'private-key-refused'
  | 'chain-broken'
  | 'unsupported';

export class PkiError extends Error {
  constructor(
    readonly code: PkiErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
    this.name = 'PkiError';
  }
}
