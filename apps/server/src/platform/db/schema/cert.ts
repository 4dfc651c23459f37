/** The PKI: local CAs, certificates, CRLs and external certificates. */
export interface CertTables {
  cert_ca: CertCaTable;
  cert_certificate: CertCertificateTable;
  cert_crl: CertCrlTable;
  cert_external: CertExternalTable;
}

/** A local CA (migration 009); `state` is pending or active (expired is read from not_after). */
export interface CertCaTable {
  id: string;
  domain_id: string;
  name: string;
  cn: string;
  subject: string;
  algorithm: string;
  key_bits: number;
  key_id: string;
  state: 'pending' | 'active';
  type: 'root' | 'intermediate' | null;
  parent_id: string | null;
  path_len: number | null;
  is_default: number;
  issuer: string | null;
  serial: string | null;
  not_before: string | null;
  not_after: string | null;
  fingerprint: string | null;
  /** SHA-1 key identifier of its public key, hexadecimal. */
  ski: string;
  cert_der: string | null;
  /** JSON array of the Base64 DER issuers above it (an externally signed CA). */
  chain_der: string;
  csr_der: string | null;
  created_at: string;
  updated_at: string;
}

export interface CertCertificateTable {
  id: string;
  domain_id: string;
  ca_id: string;
  name: string;
  cn: string;
  subject: string;
  issuer: string;
  purpose: string;
  usage: string;
  algorithm: string;
  key_bits: number;
  serial: string;
  not_before: string;
  not_after: string;
  fingerprint: string;
  cert_der: string;
  csr_der: string | null;
  key_id: string | null;
  exportable: number;
  source: string;
  /** JSON `{ dns, ips, emails }`. */
  san: string;
  /** JSON `{ key_usage, ext_key_usage }`. */
  key_usage: string;
  revocation_reason: string | null;
  revoked_at: string | null;
  /** Hidden from lists; a revoked certificate stays on its CA's CRL until it expires. */
  deleted_at: string | null;
  created_at: string;
}

export interface CertCrlTable {
  ca_id: string;
  number: number;
  this_update: string;
  next_update: string;
  entries: number;
  der: string;
  /** Set by a revocation: the next read rebuilds it. */
  stale: number;
}

/** An external certificate of a domain (migration 009; `kind`, 038): a CA's, or an end-entity one. */
export interface CertExternalTable {
  id: string;
  domain_id: string;
  name: string;
  subject: string;
  issuer: string;
  serial: string;
  fingerprint: string;
  algorithm: string;
  not_before: string;
  not_after: string;
  self_signed: number;
  cert_der: string;
  created_at: string;
  /** `ca`: a trust anchor; `certificate`: an end-entity certificate only kept (migration 038). */
  kind: ExternalKind;
}

/** What an external certificate is: only `ca` ones are ever trust anchors. */
export type ExternalKind = 'ca' | 'certificate';
