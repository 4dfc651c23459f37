import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { isWellFormedText } from '../rules/text.js';
import { withKmip } from './key-fields.js';

/**
 * Certificates and PKI (docs/modules.md#certificates): local CAs whose private keys are key objects of the
 * key store, certificates they issue, their CRLs and OCSP answers, external CAs kept as
 * trust anchors, and the public online issuing of `/sign-cert`.
 */

/** The key algorithms a local CA or an issued key pair may use. */
export const caAlgorithms = [
  'RSA-2048',
  'RSA-3072',
  'RSA-4096',
  'EC-P256',
  'EC-P384',
  'EC-P521',
  'ED25519',
  'SM2',
  'ML-DSA-44',
  'ML-DSA-65',
  'ML-DSA-87',
] as const;
export type CaAlgorithm = (typeof caAlgorithms)[number];
export const CaAlgorithmSchema = z.enum(caAlgorithms);

/** Algorithms whose keys cannot encrypt or agree on keys: their certificates sign only. */
export const signOnlyAlgorithms: readonly CaAlgorithm[] = ['ED25519', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'];

/** UKEY certificates (docs/modules.md#ukey-certificates): the token's algorithm and its certificate spec. */
export const ukeyAlgorithms = ['RSA-2048', 'SM2'] as const;
export const ukeySpecs = ['single', 'dual'] as const;
/** The token PIN the console asks for (spec: "PIN cannot be less than 6 characters"). */
export const UKEY_PIN_MIN = 6;
/** The longest token PIN the console takes. */
export const UKEY_PIN_MAX = 64;

export const caStates = ['pending', 'active', 'expired'] as const;
export const caTypes = ['root', 'intermediate'] as const;
export const certPurposes = ['server', 'client', 'intermediate'] as const;
export type CertPurpose = (typeof certPurposes)[number];
export const certUsages = ['encryption', 'signature', 'both'] as const;
export type CertUsage = (typeof certUsages)[number];
/** `hold`: revoked with reason certificateHold, which `resume` lifts. */
export const certStatuses = ['normal', 'revoked', 'hold', 'expired'] as const;
export type CertStatus = (typeof certStatuses)[number];
export const certSources = ['csr', 'generated', 'sign-cert', 'ukey'] as const;

/** RFC 5280 CRLReason, by name (removeFromCRL is what `resume` does, not a reason to give). */
export const crlReasons = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  'privilegeWithdrawn',
  'aACompromise',
] as const;
export type CrlReason = (typeof crlReasons)[number];

export const DEFAULT_CA_VALIDITY_DAYS = 3650;
export const DEFAULT_LEAF_VALIDITY_DAYS = 365;
/** The list filter and dashboard figure "expiring soon". */
export const EXPIRING_DAYS = 30;
/** A CRL is valid this long and rebuilt once less than a quarter of it is left, or on change. */
export const CRL_VALIDITY_HOURS = 24;

const DisplayName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.:@()-]*$/u);
/**
 * A name field that is not well-formed Unicode (a lone UTF-16 surrogate, which no encoder can
 * write) answers the name rule's own code: 4000 `cert.invalidName` naming the field. The
 * refinement's message is that message key; the server formats it in the caller's language.
 */
const wellFormedName = (text: z.ZodString) =>
  text.refine(isWellFormedText, { message: 'cert.invalidName', abort: true });
/** One RDN value; the server checks the whole name and answers "Invalid name data format". */
const NamePart = wellFormedName(z.string().trim().max(128));
/** Comma-separated lists of docs/modules.md#certificates: each entry is checked by the server, which names a bad one. */
const CommaList = z.string().trim().max(4096);

const SubjectFields = {
  cn: wellFormedName(z.string().trim().min(1).max(64)).describe('Common name'),
  o: NamePart.max(64).optional().describe('Organization (RFC 5280: at most 64 characters)'),
  ou: NamePart.max(64).optional().describe('Organizational unit (RFC 5280: at most 64 characters)'),
  c: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, { message: 'must be a two-letter country code' })
    .optional()
    .describe('Country (ISO 3166 two letters)'),
  st: NamePart.optional().describe('State or province'),
  l: NamePart.optional().describe('Locality'),
};
const SanFields = {
  dns_names: CommaList.optional().describe('DNS names, comma separated (a leading `*.` label is allowed)'),
  ip_addresses: CommaList.optional().describe('IPv4 or IPv6 addresses, comma separated'),
  emails: CommaList.optional().describe('E-mail addresses, comma separated'),
};

export const LocalCa = z.object({
  id: z.string(),
  name: z.string(),
  cn: z.string(),
  subject: z.string().describe('RFC 4514 distinguished name'),
  issuer: z.string().nullable().describe('null while pending'),
  algorithm: CaAlgorithmSchema,
  key_bits: z.number().int(),
  state: z.enum(caStates),
  type: z.enum(caTypes).nullable().describe('null while pending'),
  parent_id: z
    .string()
    .nullable()
    .describe('the local CA that signed it; null for a root or an externally signed CA'),
  parent_name: z.string().nullable(),
  path_len: z.number().int().nullable().describe('basicConstraints pathLenConstraint; null: unlimited'),
  is_default: z.boolean().describe('the CA that issues for `/sign-cert` and enrolments of its domain'),
  serial: z.string().nullable().describe('hexadecimal'),
  not_before: z.string().nullable(),
  not_after: z.string().nullable(),
  fingerprint: z.string().nullable().describe('SHA-256 of the certificate DER, hexadecimal'),
  key_id: z.string().describe('the private key object in the key store'),
  issued: z.number().int().describe('certificates issued by this CA and not deleted'),
  crl_url: z.string().describe('where the CRL is published (named in issued certificates)'),
  ocsp_url: z.string().describe('the OCSP responder for certificates of this CA'),
  created_at: z.string(),
});
export const LocalCaDetail = LocalCa.extend({
  certificate_pem: z.string().nullable(),
  csr_pem: z.string().nullable(),
  chain_pem: z.array(z.string()).describe('this CA first, up to its root'),
  crl: z
    .object({
      number: z.string(),
      this_update: z.string(),
      next_update: z.string(),
      entries: z.number().int(),
    })
    .nullable(),
});

export const Certificate = z.object({
  id: z.string(),
  name: z.string().describe('display name'),
  cn: z.string(),
  subject: z.string(),
  issuer: z.string(),
  ca_id: z.string().nullable(),
  ca_name: z.string().nullable(),
  purpose: z.enum(certPurposes),
  usage: z.enum(certUsages),
  algorithm: z.string().describe('the subject key algorithm (one of the CA algorithms)'),
  key_bits: z.number().int(),
  serial: z.string().describe('hexadecimal, unique per CA, at least 64 random bits'),
  not_before: z.string(),
  not_after: z.string(),
  fingerprint: z.string().describe('SHA-256 of the certificate DER, hexadecimal'),
  status: z.enum(certStatuses),
  expiring: z.boolean().describe(`valid and ending within ${EXPIRING_DAYS} days`),
  revocation_reason: z.enum(crlReasons).nullable(),
  revoked_at: z.string().nullable(),
  dns_names: z.array(z.string()),
  ip_addresses: z.array(z.string()),
  emails: z.array(z.string()),
  source: z.enum(certSources),
  key_id: z.string().nullable().describe('the key pair the server generated (in the key store), if any'),
  has_private_key: z.boolean(),
  exportable: z.boolean().describe('whether the generated private key may be downloaded'),
  created_at: z.string(),
});
export const CertificateDetail = Certificate.extend({
  certificate_pem: z.string(),
  chain_pem: z.array(z.string()).describe('the issuing CA first, up to its root'),
  csr_pem: z.string().nullable(),
  key_usage: z.array(z.string()),
  ext_key_usage: z.array(z.string()),
});

/** What an external certificate is: a CA certificate (a trust anchor), or an end-entity one (only kept). */
export const ExternalKind = z.enum(['ca', 'certificate']);

export const ExternalCa = z.object({
  id: z.string(),
  name: z.string(),
  kind: ExternalKind.describe(
    'ca: a CA certificate, a trust anchor of the domain; certificate: an end-entity certificate, only kept (never trusted as an issuer)',
  ),
  subject: z.string(),
  issuer: z.string(),
  serial: z.string(),
  fingerprint: z.string(),
  algorithm: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  status: z.enum(['valid', 'expired', 'not-yet-valid']),
  self_signed: z.boolean(),
  created_at: z.string(),
});
export const ExternalCaDetail = ExternalCa.extend({ certificate_pem: z.string() });

/** A file to save: `content` is Base64 of the bytes (PEM files too). */
export const FileDownload = z.object({
  filename: z.string(),
  content_type: z.string(),
  content: z.string().describe('Base64 of the file'),
});

const CaId = z.object({ id: Id });
const ValidityDays = (max: number, byDefault: number) =>
  z.number().int().min(1).max(max).default(byDefault).describe("days; never past the issuer's own end");
const PathLen = z.number().int().min(0).max(16).optional().describe('basicConstraints pathLenConstraint');
/** A PEM or Base64 text upload: at most 1 MiB. */
const PemText = z.string().trim().min(1).max(1_048_576);
const DownloadPassword = z
  .string()
  .min(8, { message: 'must be at least 8 characters' })
  .max(128)
  .describe('encrypts the private key of the file');

export const caDownloadKinds = [
  'cert-pem',
  'cert-der',
  'chain-pem',
  'chain-p7b',
  'csr',
  'crl-pem',
  'crl-der',
] as const;
export const certDownloadKinds = ['cert-pem', 'cert-der', 'chain-pem', 'chain-p7b', 'csr'] as const;
/** An encrypted PKCS#8 PEM, or a PKCS#12 with the certificate and its chain. */
export const keyDownloadKinds = ['key-pkcs8', 'key-pkcs12'] as const;

export const certCalls = {
  caList: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/ca/list',
    summary: 'Local CAs of the current domain',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: PageQuery.extend({
      name: z.string().trim().max(128).optional().describe('part of the name or common name'),
      state: z.enum(caStates).optional(),
      type: z.enum(caTypes).optional(),
    }),
    data: pageOf(LocalCa),
  }),
  caDetail: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/ca/detail',
    summary: 'One local CA with its certificate, CSR, chain and CRL figures',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: CaId,
    data: LocalCaDetail,
  }),
  caCreate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/create',
    summary: 'Create a local CA: a key pair in the key store and a CSR (state pending)',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      name: DisplayName,
      ...SubjectFields,
      ...SanFields,
      algorithm: CaAlgorithmSchema.default('EC-P256'),
    }),
    data: LocalCaDetail,
  }),
  caSelfSign: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/self-sign',
    summary: 'Self-sign a pending local CA: it becomes an active root',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      id: Id,
      validity_days: ValidityDays(36500, DEFAULT_CA_VALIDITY_DAYS),
      path_len: PathLen,
    }),
    data: LocalCaDetail,
  }),
  caSign: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/sign',
    summary: 'Sign a pending local CA with another active local CA: it becomes an intermediate',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      id: Id,
      parent_id: Id,
      validity_days: ValidityDays(36500, DEFAULT_CA_VALIDITY_DAYS),
      path_len: PathLen,
    }),
    data: LocalCaDetail,
  }),
  caInstall: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/install',
    summary: 'Install the certificate an external CA issued for a pending local CA (checked against its key)',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      id: Id,
      certificate: PemText.describe('PEM: the CA certificate, optionally followed by its issuers'),
    }),
    data: LocalCaDetail,
  }),
  caUpdate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/update',
    summary: 'Rename a local CA or make it the default issuing CA of its domain',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({ id: Id, name: DisplayName.optional(), is_default: z.literal(true).optional() }),
    data: LocalCaDetail,
  }),
  caDelete: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ca/delete',
    summary: 'Delete local CAs that sign no other CA and have no certificate that is still valid',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  caDownload: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/ca/download',
    summary: 'A file of a local CA: its certificate, chain, CSR or current CRL',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: z.object({ id: Id, kind: z.enum(caDownloadKinds) }),
    data: FileDownload,
  }),

  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/list',
    summary: 'Certificates issued by the local CAs of the current domain',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: PageQuery.extend({
      name: z.string().trim().max(128).optional().describe('part of the display name or common name'),
      ca_id: Id.optional(),
      status: z.enum(certStatuses).optional(),
      purpose: z.enum(certPurposes).optional(),
      source: z
        .enum(certSources)
        .optional()
        .describe('how it was issued: csr, generated, sign-cert (online) or ukey'),
      expiring: z
        .enum(['true', 'false'])
        .optional()
        .describe(`"true": only valid certificates ending within ${EXPIRING_DAYS} days`),
    }),
    data: pageOf(Certificate),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/detail',
    summary: 'One certificate with its PEM, chain and CSR',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: z.object({ id: Id }),
    data: CertificateDetail,
  }),
  summary: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/summary',
    summary: 'Certificate figures of the current domain (for the dashboard)',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    data: z.object({
      total: z.number().int(),
      valid: z.number().int(),
      revoked: z.number().int().describe('revoked or on hold'),
      expired: z.number().int(),
      expiring: z.number().int().describe(`valid and ending within ${EXPIRING_DAYS} days`),
      cas: z.number().int(),
    }),
  }),
  issue: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/issue',
    summary:
      'Issue a certificate from a PKCS#10 CSR, or for a key pair the server generates in the key store',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      name: DisplayName,
      ca_id: Id.describe('the issuing local CA (active)'),
      csr: PemText.optional().describe(
        'PEM PKCS#10; its signature is checked. Without it the server generates the key pair',
      ),
      key_algorithm: CaAlgorithmSchema.optional().describe('for a generated key pair; default EC-P256'),
      exportable: z
        .boolean()
        .default(false)
        .describe('a generated private key may be downloaded (encrypted)'),
      cn: SubjectFields.cn
        .optional()
        .describe("Common name; required without a CSR, replaces the CSR's otherwise"),
      o: SubjectFields.o,
      ou: SubjectFields.ou,
      c: SubjectFields.c,
      st: SubjectFields.st,
      l: SubjectFields.l,
      ...SanFields,
      purpose: z.enum(certPurposes).default('server'),
      usage: z.enum(certUsages).default('signature'),
      validity_days: ValidityDays(36500, DEFAULT_LEAF_VALIDITY_DAYS),
      path_len: PathLen.describe('purpose intermediate only'),
    }),
    data: CertificateDetail,
  }),
  revoke: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/revoke',
    summary: 'Revoke a certificate (RFC 5280 reason); certificateHold can be resumed',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({ id: Id, reason: z.enum(crlReasons).default('unspecified') }),
    data: CertificateDetail,
  }),
  resume: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/resume',
    summary: 'Lift the certificateHold of a certificate',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({ id: Id }),
    data: CertificateDetail,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/delete',
    summary: 'Delete revoked or expired certificates (revoked ones stay on the CRL until they expire)',
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  download: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/download',
    summary: 'A file of a certificate: PEM, DER, its chain (PEM or .p7b) or its CSR',
    tag: 'cert',
    access: 'cert:read',
    changesAccess: false,
    query: z.object({ id: Id, kind: z.enum(certDownloadKinds) }),
    data: FileDownload,
  }),
  downloadKey: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/download-key',
    summary:
      'The private key the server generated for a certificate, encrypted under a password the caller gives (only when the key is exportable)',
    tag: 'cert',
    access: 'cert:export',
    changesAccess: false,
    body: z.object({
      id: Id,
      kind: z.enum(keyDownloadKinds),
      password: DownloadPassword,
    }),
    data: FileDownload,
  }),

  ukeyIssue: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/ukey/issue',
    summary:
      "Issue a user's UKEY certificates from the token's signing CSR and bind the signing certificate to the user (UKEY login)",
    tag: 'cert',
    access: 'cert:write',
    changesAccess: false,
    body: z.object({
      user_id: Id.describe('the user the UKEY belongs to (binding another user also asks user:write)'),
      ukey_type: z.string().trim().min(1).max(64).describe('token vendor or middleware (GM/T 0016 SKF)'),
      algorithm: z.enum(ukeyAlgorithms),
      spec: z
        .enum(ukeySpecs)
        .default('single')
        .describe('single: a signing certificate; dual (SM2 only): signing and encryption certificates'),
      serial: z.string().trim().min(1).max(64).describe('the UKEY serial number'),
      csr: PemText.describe(
        "PEM PKCS#10 made by the token with its signing key; the token's PIN never reaches the server",
      ),
      validity_days: ValidityDays(3650, DEFAULT_LEAF_VALIDITY_DAYS),
    }),
    data: z.object({
      signing: CertificateDetail,
      encryption: CertificateDetail.nullable().describe('dual only'),
      enveloped_key: z
        .string()
        .nullable()
        .describe(
          'dual only: Base64 DER of the GM/T 0009-2012 SM2EnvelopedKey holding the encryption private key, under the signing public key',
        ),
      chain_pem: z.array(z.string()).describe('the issuing CA first, up to its root'),
    }),
  }),
  externalList: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/external/list',
    summary:
      'External certificates of the current domain: CA certificates (trust anchors) and end-entity certificates',
    tag: 'cert',
    access: 'cert:read',
    tokens: withKmip(['session']),
    changesAccess: false,
    query: PageQuery.extend({
      name: z.string().trim().max(128).optional(),
      kind: ExternalKind.optional().describe('only this kind'),
    }),
    data: pageOf(ExternalCa),
  }),
  externalDetail: defineCall({
    method: 'GET',
    path: '/v1/ksp/cert/external/detail',
    summary: 'One external certificate (a CA or an end-entity one)',
    tag: 'cert',
    access: 'cert:read',
    tokens: withKmip(['session']),
    changesAccess: false,
    query: z.object({ id: Id }),
    data: ExternalCaDetail,
  }),
  externalUpload: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/external/upload',
    summary:
      'Add CA certificates from PEM or a PKCS#7 (.p7b) chain, or end-entity certificates (kind certificate); each certificate is stored',
    tag: 'cert',
    access: 'cert:write',
    tokens: withKmip(['session']),
    changesAccess: false,
    body: z.object({
      name: DisplayName.optional().describe(
        'given to a single certificate; otherwise each is named by its CN',
      ),
      content: PemText.describe(
        'PEM text (CERTIFICATE or PKCS7 blocks) or Base64 of a DER certificate or .p7b',
      ),
      kind: ExternalKind.optional().describe(
        'ca (default): every certificate must be a CA certificate; certificate: every one must be an end-entity certificate',
      ),
    }),
    data: z.object({ added: z.array(ExternalCa), skipped: z.number().int().describe('already present') }),
  }),
  externalDelete: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/external/delete',
    summary: 'Delete external certificates',
    tag: 'cert',
    access: 'cert:write',
    tokens: withKmip(['session']),
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),

  sign: defineCall({
    method: 'POST',
    path: '/v1/ksp/cert/sign',
    summary:
      "Online issuing (/sign-cert): a PKCS#10 CSR and a registration token give a client certificate from the token domain's default CA",
    tag: 'cert',
    access: 'public',
    signIn: true,
    changesAccess: false,
    body: z.object({
      token: z.string().trim().min(1).max(256).describe("the registration token's secret"),
      csr: PemText.describe('PEM PKCS#10; never a private key'),
    }),
    data: z.object({
      certificate_pem: z.string(),
      chain_pem: z.array(z.string()).describe('the issuing CA first, up to its root'),
      p7b: z.string().describe('Base64 of the certificate and its chain as a DER PKCS#7 (.p7b)'),
      serial: z.string(),
      not_after: z.string(),
      remaining: z.number().int().nullable().describe('uses left on the token; null: unlimited'),
    }),
  }),
};
