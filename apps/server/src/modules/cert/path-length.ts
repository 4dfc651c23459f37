import type { CertCaTable } from '../../platform/db/schema.js';
import { stateForbids } from '../../platform/errors.js';

/**
 * Refuses a CA certificate (`ca/sign`, or `cert/issue` with purpose `intermediate`) that the
 * issuing CA's basicConstraints path length does not allow: none at all below path length 0,
 * and a `path_len` that is not below the issuer's. The refusal names the issuer's own path length.
 */
export function checkPathLength(issuer: CertCaTable, requested: number | undefined): void {
  if (issuer.path_len === null) return;
  if (issuer.path_len === 0) throw stateForbids('cert.caNotIssuing', { name: issuer.name });
  if (requested !== undefined && requested > issuer.path_len - 1)
    throw stateForbids('cert.caPathLenTooLong', {
      name: issuer.name,
      parent: issuer.path_len,
      max: issuer.path_len - 1,
    });
}
