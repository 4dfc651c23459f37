import type { CertPurpose, CertUsage } from '@ksp/contracts';
import type { CertCaTable, CertCertificateTable } from '../../platform/db/schema.js';
import type { CertContext } from './cert.context.js';
import { b64, DAY_MS, fingerprintOf, iso, newId, wholeSeconds } from './cert.input.js';
import * as pki from './cert.pki.js';
import { checkPathLength } from './path-length.js';

/** What one certificate is made of, whichever job issues it. */
export interface IssueInput {
  /** The certificate's id when it was chosen before signing (its generated key pair is named after it). */
  id?: string;
  ca: CertCaTable;
  caCert: Buffer;
  name: string;
  subjectName: Buffer;
  spki: Buffer;
  algorithm: string;
  keyBits: number;
  purpose: CertPurpose;
  usage: CertUsage;
  san: pki.SanList;
  validityDays: number;
  pathLen?: number | undefined;
  csrDer: Buffer | null;
  keyId: string | null;
  exportable: boolean;
  source: 'csr' | 'generated' | 'sign-cert' | 'ukey';
  /** The CSR that gave the subject and key: what it read is not read again. */
  csr?: pki.ParsedCsr;
}

/** Validity never passes the issuer's own end: it is cut there. */
export function clampEnd(requested: Date, issuerEnd: string | null): Date {
  if (!issuerEnd) return requested;
  const end = new Date(issuerEnd);
  return requested.getTime() > end.getTime() ? end : requested;
}

/** A CA certificate may be issued only within the issuer's path length. */
export function checkIntermediate(ca: CertCaTable, purpose: CertPurpose, pathLen: number | undefined) {
  if (purpose !== 'intermediate') return;
  checkPathLength(ca, pathLen);
}

/**
 * Signs one certificate and answers its row; the caller stores and audits it in one
 * transaction. Signing happens before any transaction opens: it reads the CA's key, and a
 * SQLite transaction holds the only connection.
 */
export async function signCertificate(
  ctx: CertContext,
  domainId: string,
  input: IssueInput,
): Promise<CertCertificateTable> {
  const { ca } = input;
  checkIntermediate(ca, input.purpose, input.pathLen);
  const start = wholeSeconds(ctx.now());
  const end = clampEnd(new Date(start.getTime() + input.validityDays * DAY_MS), ca.not_after);
  const profile: pki.CertificateProfile =
    input.purpose === 'intermediate'
      ? {
          kind: 'ca',
          ...(input.pathLen !== undefined
            ? { pathLen: input.pathLen }
            : ca.path_len !== null
              ? { pathLen: Math.max(0, ca.path_len - 1) }
              : {}),
        }
      : { kind: 'end-entity', purpose: input.purpose, usage: input.usage, san: input.san };
  const issuer = ctx.caParts({ ...ca, cert_der: b64(input.caCert) });
  const signer = ctx.signerOf(ca);
  const prepared = pki.prepareCertificate({
    serial: pki.newSerial(),
    issuerName: issuer.subject,
    subjectName: input.subjectName,
    notBefore: start,
    notAfter: end,
    subjectSpki: input.spki,
    signer: { algorithm: signer.algorithm, spki: signer.spki },
    profile,
    issuerSki: issuer.ski,
    crlUrl: ctx.crlUrl(ca.id),
    ocspUrl: ctx.ocspUrl(ca.id),
    known: {
      issuer: issuer.subjectText,
      ...(input.csr?.spki === input.spki ? { subjectKey: input.csr.read.subjectKey } : {}),
      ...(input.csr?.subjectName === input.subjectName ? { subject: input.csr.read.subject } : {}),
    },
  });
  const { der, description: described } = pki.finishCertificate(prepared, await signer.sign(prepared.tbs));
  return {
    id: input.id ?? newId(),
    domain_id: domainId,
    ca_id: ca.id,
    name: input.name,
    cn: prepared.subjectCn ?? described.subject,
    subject: described.subject,
    issuer: described.issuer,
    purpose: input.purpose,
    usage: input.purpose === 'intermediate' ? 'signature' : input.usage,
    algorithm: input.algorithm,
    key_bits: input.keyBits,
    serial: described.serial,
    not_before: described.not_before,
    not_after: described.not_after,
    fingerprint: fingerprintOf(der),
    cert_der: b64(der),
    csr_der: input.csrDer ? b64(input.csrDer) : null,
    key_id: input.keyId,
    exportable: input.exportable ? 1 : 0,
    source: input.source,
    san: JSON.stringify(described.san),
    key_usage: JSON.stringify({ key_usage: described.key_usage, ext_key_usage: described.ext_key_usage }),
    revocation_reason: null,
    revoked_at: null,
    deleted_at: null,
    created_at: iso(ctx.now()),
  };
}
