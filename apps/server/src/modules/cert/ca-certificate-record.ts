import { createHash } from 'node:crypto';
import type { CertCaTable, CertCertificateTable } from '../../platform/db/schema.js';
import type * as pki from './cert.pki.js';

/**
 * The certificate a local CA issued to another local CA (`ca/sign`), recorded among the
 * issuing CA's certificates like any certificate it issues (`cert/issue` purpose
 * `intermediate`): its OCSP responder knows the serial (good, then revoked), `cert/revoke`
 * puts it on the issuer's CRL, and `cert/list` shows it under the issuer. It is the signed
 * CA's own certificate, issued from its CSR; the key stays the CA's (`key_id` null here).
 */
export function caCertificateRecord(input: {
  id: string;
  signed: CertCaTable;
  issuerId: string;
  certDer: Buffer;
  described: ReturnType<typeof pki.describeCertificate>;
  createdAt: string;
}): CertCertificateTable {
  const { signed, described } = input;
  return {
    id: input.id,
    domain_id: signed.domain_id,
    ca_id: input.issuerId,
    name: signed.name,
    cn: signed.cn,
    subject: described.subject,
    issuer: described.issuer,
    purpose: 'intermediate',
    usage: 'signature',
    algorithm: signed.algorithm,
    key_bits: signed.key_bits,
    serial: described.serial,
    not_before: described.not_before,
    not_after: described.not_after,
    fingerprint: createHash('sha256').update(input.certDer).digest('hex'),
    cert_der: input.certDer.toString('base64'),
    csr_der: signed.csr_der,
    key_id: null,
    exportable: 0,
    source: 'csr',
    san: JSON.stringify(described.san),
    key_usage: JSON.stringify({ key_usage: described.key_usage, ext_key_usage: described.ext_key_usage }),
    revocation_reason: null,
    revoked_at: null,
    deleted_at: null,
    created_at: input.createdAt,
  };
}

/**
 * The serials of the CA certificates a CA issued to CAs deleted in the same call: they go
 * with their CAs and do not keep their issuer from being deleted.
 */
export function serialsGoingWith(issuerId: string, deleted: readonly CertCaTable[]): string[] {
  return deleted.flatMap((ca) => (ca.parent_id === issuerId && ca.serial ? [ca.serial] : []));
}
