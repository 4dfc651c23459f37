import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import {
  CRL_VALIDITY_HOURS,
  DEFAULT_CA_VALIDITY_DAYS,
  EXPIRING_DAYS,
  signOnlyAlgorithms,
  type api,
  type CaAlgorithm,
  type CertPurpose,
  type CertStatus,
  type CertUsage,
  type CrlReason,
  type Input,
  type QueryInput,
} from '@ksp/contracts';
import { auditRow, subjectOf, writeAudit, type AuditEntry } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { CertificateRevocations } from '../../platform/cert-revocations.js';
import { generateKey } from '../../platform/crypto/generate.js';
import { nonceBytes } from '../../platform/crypto/random.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { Journal } from '../../platform/db/journal.js';
import type { CertCaTable, CertCertificateTable, CertExternalTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';
import { subjectFieldOf } from './name-fields.js';
import { checkPathLength } from './path-length.js';
import { caCertificateRecord, serialsGoingWith } from './ca-certificate-record.js';

type Vault = ModuleServices['keyVault'];
type Tokens = ModuleServices['registrationTokens'];
type Ukeys = ModuleServices['ukeys'];

const DAY_MS = 86_400_000;
/** The root CA a domain gets on demand. */
const DEFAULT_ROOT_CA_NAME = 'Root CA';
const HOUR_MS = 3_600_000;
/** A CRL is rebuilt once less than this share of its validity is left. */
const CRL_REFRESH_SHARE = 0.25;
/** How long a node serves its in-memory CRL before checking the database for a newer one. */
const CRL_RECHECK_MS = 5_000;
/** How long an OCSP answer may be relied on. */
const OCSP_VALIDITY_MS = HOUR_MS;

const b64 = (der: Buffer) => der.toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64');
const iso = (date: Date) => date.toISOString();
const wholeSeconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);
const newId = () => uuidv7({ random: nonceBytes(16) });
const fingerprintOf = (der: Buffer) => createHash('sha256').update(der).digest('hex');

/** A PkiError (bad input) as the contract's error, naming the field and the rule. */
function fromPki(err: unknown, field: string): never {
  if (!(err instanceof pki.PkiError)) throw err;
  switch (err.code) {
    case 'invalid-name':
      throw invalid('cert.invalidName', { field });
    case 'invalid-san': {
      const value = String(err.details.value ?? '');
      const kind = String(err.details.field ?? '');
      if (kind === 'ips') throw invalid('cert.invalidIp', { value });
      if (kind === 'emails') throw invalid('cert.invalidEmail', { value });
      throw invalid('cert.invalidDns', { value });
    }
    case 'private-key-refused':
      throw invalid('cert.privateKeyRefused');
    case 'invalid-csr':
      throw invalid('cert.invalidCsr');
    case 'chain-broken':
      throw invalid('cert.chainBroken', { subject: String(err.details.subject ?? '') });
    case 'invalid-pem':
    case 'invalid-certificate':
      throw invalid(field === 'certificate' ? 'cert.invalidCertificatePem' : 'cert.invalidPem');
    default:
      throw invalid(field === 'certificate' ? 'cert.invalidCertificatePem' : 'cert.invalidPem');
  }
}

/** Calls the engine on user input: its refusals become 4000 answers. */
function checked<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    return fromPki(err, field);
  }
}

interface SanFields {
  dns_names?: string | undefined;
  ip_addresses?: string | undefined;
  emails?: string | undefined;
}

function sanOf(fields: SanFields): pki.SanList {
  return checked('san', () =>
    pki.parseSanList({
      dns: fields.dns_names ?? '',
      ips: fields.ip_addresses ?? '',
      emails: fields.emails ?? '',
    }),
  );
}

const mergeSan = (a: pki.SanList, b: pki.SanList): pki.SanList => ({
  dns: [...new Set([...a.dns, ...b.dns])],
  ips: [...new Set([...a.ips, ...b.ips])],
  emails: [...new Set([...a.emails, ...b.emails])],
});

interface NameInput {
  cn: string;
  o?: string | undefined;
  ou?: string | undefined;
  c?: string | undefined;
  st?: string | undefined;
  l?: string | undefined;
}

function nameOf(fields: NameInput): Buffer {
  const parts: pki.NameFields = {
    cn: fields.cn,
    ...(fields.o ? { o: fields.o } : {}),
    ...(fields.ou ? { ou: fields.ou } : {}),
    ...(fields.c ? { c: fields.c.toUpperCase() } : {}),
    ...(fields.st ? { st: fields.st } : {}),
    ...(fields.l ? { l: fields.l } : {}),
  };
  try {
    return pki.parseName(parts);
  } catch (err) {
    return fromPki(err, subjectFieldOf(err));
  }
}

/**
 * Certificates and PKI (docs/modules.md#certificates). A local CA's private key is a key object of the key
 * store (`keyVault`): every signature the CA makes (certificates, CRLs, OCSP answers) goes
 * through it, and nothing here holds key material. Every change writes its audit record in
 * the same transaction; failed checks (a CSR whose signature does not match, a certificate
 * that is not the CA's key) are audited as failures.
 */
export function createCertService(deps: {
  db: Db;
  clock: Clock;
  /** Issuing's group commit: certificates issued together share one transaction and flush. */
  journal: Journal;
  vault: () => Vault;
  tokens: () => Tokens;
  ukeys: () => Ukeys;
  log?: { warn(details: object, message: string): void };
  /** The name of a domain (for the CA a domain gets on demand). */
  domainName: (domainId: string) => Promise<string | undefined>;
  /** The public base URL written into certificates (CRL distribution point, OCSP). */
  pkiBaseUrl: () => string;
  /** Who follows a revocation (the client module), when installed. */
  revocations?: () => CertificateRevocations | undefined;
}) {
  const { db, clock } = deps;
  const now = () => clock();

  const crlUrl = (caId: string) => `${deps.pkiBaseUrl()}/pki/crl/${caId}.crl`;
  const ocspUrl = (caId: string) => `${deps.pkiBaseUrl()}/pki/ocsp/${caId}`;

  async function audit(entry: AuditEntry, trx: Executor = db) {
    await writeAudit(trx, entry);
  }

  /* ---- local CAs ---- */

  async function loadCa(actor: Actor, id: string, trx: Executor = db) {
    const row = await store.findCa(trx, actor.domainId, id);
    if (!row) throw notFound('cert.caNotFound', { id });
    return row;
  }

  function caState(row: CertCaTable, at = now()): 'pending' | 'active' | 'expired' {
    if (row.state === 'pending') return 'pending';
    return row.not_after && Date.parse(row.not_after) <= at.getTime() ? 'expired' : 'active';
  }

  /**
   * What signing needs of an active CA's certificate, parsed once per certificate and kept:
   * its subject (the issuer name of what it signs), its key and its key identifier. Parsing
   * DER costs more than the signature.
   */
  interface CaParts {
    subject: Buffer;
    /** The subject as RFC 4514 text (an issued certificate's issuer). */
    subjectText: string;
    spki: Buffer;
    ski: Buffer;
  }
  const caPartsCache = new Map<string, CaParts>();
  function caParts(row: CertCaTable & { cert_der: string }): CaParts {
    const cacheKey = `${row.id}/${row.fingerprint ?? ''}`;
    const cached = caPartsCache.get(cacheKey);
    if (cached) return cached;
    const der = unb64(row.cert_der);
    const described = pki.describeCertificate(der);
    const parts = {
      subject: pki.certificateSubject(der),
      subjectText: described.subject,
      spki: pki.certificateSpki(der),
      ski: Buffer.from((described.ski ?? row.ski).replace(/:/g, ''), 'hex'),
    };
    if (caPartsCache.size >= 1000) caPartsCache.clear();
    caPartsCache.set(cacheKey, parts);
    return parts;
  }

  /** The CA's SubjectPublicKeyInfo: from its certificate, or from its CSR while pending. */
  function caSpki(row: CertCaTable): Buffer {
    if (row.cert_der) return caParts({ ...row, cert_der: row.cert_der }).spki;
    if (row.csr_der) return pki.parseCsr(unb64(row.csr_der)).spki;
    throw new Error(`local CA ${row.id} has neither a certificate nor a CSR`);
  }

  function signerOf(row: CertCaTable, spki: Buffer = caSpki(row)): pki.Signer {
    return {
      algorithm: row.algorithm as CaAlgorithm,
      spki,
      sign: (data) =>
        deps.vault().sign(row.domain_id, row.key_id, data, {
          rsaScheme: 'PKCS1-v1_5',
          certificateSign: true,
          refusal: () => stateForbids('cert.caKeyUnavailable', { name: row.name }),
        }),
    };
  }

  /** An active CA that may issue now (not pending, not expired). */
  function checkIssuing(ca: CertCaTable) {
    const state = caState(ca);
    if (state === 'pending') throw stateForbids('cert.caPending', { name: ca.name });
    if (state === 'expired') throw stateForbids('cert.caExpired', { name: ca.name });
    if (!ca.cert_der) throw stateForbids('cert.caPending', { name: ca.name });
    return unb64(ca.cert_der);
  }

  /** The chain above a CA, nearest issuer first: local parents, then any installed issuers. */
  async function chainAbove(ca: CertCaTable, trx: Executor = db): Promise<Buffer[]> {
    const chain: Buffer[] = [];
    let current: CertCaTable | undefined = ca;
    for (let depth = 0; current && depth < 16; depth++) {
      if (current.parent_id) {
        const parent: CertCaTable | undefined = await store.findCa(trx, current.domain_id, current.parent_id);
        if (!parent?.cert_der) break;
        chain.push(unb64(parent.cert_der));
        current = parent;
      } else {
        for (const der of JSON.parse(current.chain_der) as string[]) chain.push(unb64(der));
        break;
      }
    }
    return chain;
  }

  function clampEnd(requested: Date, issuerEnd: string | null): Date {
    if (!issuerEnd) return requested;
    const end = new Date(issuerEnd);
    return requested.getTime() > end.getTime() ? end : requested;
  }

  function caView(row: CertCaTable, issued: number, parentName: string | null) {
    return {
      id: row.id,
      name: row.name,
      cn: row.cn,
      subject: row.subject,
      issuer: row.issuer,
      algorithm: row.algorithm as CaAlgorithm,
      key_bits: row.key_bits,
      state: caState(row),
      type: row.type,
      parent_id: row.parent_id,
      parent_name: parentName,
      path_len: row.path_len,
      is_default: row.is_default === 1,
      serial: row.serial,
      not_before: row.not_before,
      not_after: row.not_after,
      fingerprint: row.fingerprint,
      key_id: row.key_id,
      issued,
      crl_url: crlUrl(row.id),
      ocsp_url: ocspUrl(row.id),
      created_at: row.created_at,
    };
  }

  async function caDetailOf(row: CertCaTable) {
    const issued = (await store.issuedCounts(db, [row.id])).get(row.id) ?? 0;
    const parentName = row.parent_id
      ? ((await store.caNames(db, [row.parent_id])).get(row.parent_id) ?? null)
      : null;
    const chain = row.cert_der ? [unb64(row.cert_der), ...(await chainAbove(row))] : [];
    const crl = await store.findCrl(db, row.id);
    return {
      ...caView(row, issued, parentName),
      certificate_pem: row.cert_der ? pki.toPem(unb64(row.cert_der), 'CERTIFICATE') : null,
      csr_pem: row.csr_der ? pki.toPem(unb64(row.csr_der), 'CERTIFICATE REQUEST') : null,
      chain_pem: chain.map((der) => pki.toPem(der, 'CERTIFICATE')),
      crl: crl
        ? {
            number: String(crl.number),
            this_update: crl.this_update,
            next_update: crl.next_update,
            entries: crl.entries,
          }
        : null,
    };
  }

  /** Stores a CA's certificate once it is signed: the CA becomes active. */
  async function activateCa(
    actor: Actor,
    meta: RequestMeta,
    ca: CertCaTable,
    certDer: Buffer,
    fields: Partial<CertCaTable>,
    action: string,
    issuer?: CertCaTable,
  ) {
    const described = pki.describeCertificate(certDer);
    await db.transaction().execute(async (trx) => {
      // Signed by a local CA: the certificate is also one of that CA's certificates (OCSP, CRL).
      if (issuer)
        await store.insertCertificate(
          trx,
          caCertificateRecord({
            id: newId(),
            signed: ca,
            issuerId: issuer.id,
            certDer,
            described,
            createdAt: iso(now()),
          }),
        );
      const hasDefault = await store.findDefaultCa(trx, actor.domainId);
      await store.updateCa(trx, ca.id, {
        state: 'active',
        issuer: described.issuer,
        serial: described.serial,
        not_before: described.not_before,
        not_after: described.not_after,
        fingerprint: fingerprintOf(certDer),
        path_len: described.path_len,
        cert_der: b64(certDer),
        is_default: hasDefault ? ca.is_default : 1,
        updated_at: iso(now()),
        ...fields,
      });
      await audit(
        {
          who: subjectOf(actor),
          action,
          target: ca.name,
          result: 'success',
          ip: meta.ip,
          objectId: ca.id,
          details: { serial: described.serial, ...(fields.parent_id ? { parent_id: fields.parent_id } : {}) },
        },
        trx,
      );
    });
    const active = await loadCa(actor, ca.id);
    // Its first CRL is published at once (empty), so relying parties find one at the URL its
    // certificates will name. A CA whose key cannot sign yet gets it from the job later.
    try {
      await rebuildCrl(active);
    } catch (err) {
      deps.log?.warn({ ca: ca.id, err: err instanceof Error ? err.message : String(err) }, 'CRL not built');
    }
    return caDetailOf(active);
  }

  function checkPending(ca: CertCaTable) {
    if (ca.state !== 'pending') throw stateForbids('cert.caNotPending', { name: ca.name });
  }

  /* ---- certificates ---- */

  async function loadCert(actor: Actor, id: string, trx: Executor = db) {
    const row = await store.findCertificate(trx, actor.domainId, id);
    if (!row) throw notFound('cert.notFound', { id });
    return row;
  }

  function certStatus(row: CertCertificateTable, at = now()): CertStatus {
    if (row.revocation_reason === 'certificateHold') return 'hold';
    if (row.revoked_at) return 'revoked';
    return Date.parse(row.not_after) <= at.getTime() ? 'expired' : 'normal';
  }

  function certView(row: CertCertificateTable, caName: string | null) {
    const at = now();
    const status = certStatus(row, at);
    const san = JSON.parse(row.san) as pki.SanList;
    return {
      id: row.id,
      name: row.name,
      cn: row.cn,
      subject: row.subject,
      issuer: row.issuer,
      ca_id: row.ca_id,
      ca_name: caName,
      purpose: row.purpose as CertPurpose,
      usage: row.usage as CertUsage,
      algorithm: row.algorithm,
      key_bits: row.key_bits,
      serial: row.serial,
      not_before: row.not_before,
      not_after: row.not_after,
      fingerprint: row.fingerprint,
      status,
      expiring: status === 'normal' && Date.parse(row.not_after) <= at.getTime() + EXPIRING_DAYS * DAY_MS,
      revocation_reason: (row.revocation_reason as CrlReason | null) ?? null,
      revoked_at: row.revoked_at,
      dns_names: san.dns,
      ip_addresses: san.ips,
      emails: san.emails,
      source: row.source as 'csr' | 'generated' | 'sign-cert' | 'ukey',
      key_id: row.key_id,
      has_private_key: row.key_id !== null,
      exportable: row.exportable === 1,
      created_at: row.created_at,
    };
  }

  /** The certificate's detail; `issuer`: its CA's row when the caller holds it already (issuing). */
  async function certDetailOf(row: CertCertificateTable, issuer?: CertCaTable) {
    const ca = issuer?.id === row.ca_id ? issuer : await store.findCaAnyDomain(db, row.ca_id);
    const chain = ca?.cert_der ? [unb64(ca.cert_der), ...(await chainAbove(ca))] : [];
    const usages = JSON.parse(row.key_usage) as { key_usage: string[]; ext_key_usage: string[] };
    return {
      ...certView(row, ca?.name ?? null),
      certificate_pem: pki.toPem(unb64(row.cert_der), 'CERTIFICATE'),
      chain_pem: chain.map((der) => pki.toPem(der, 'CERTIFICATE')),
      csr_pem: row.csr_der ? pki.toPem(unb64(row.csr_der), 'CERTIFICATE REQUEST') : null,
      key_usage: usages.key_usage,
      ext_key_usage: usages.ext_key_usage,
    };
  }

  function checkUsage(algorithm: string, usage: CertUsage) {
    if (usage !== 'signature' && (signOnlyAlgorithms as readonly string[]).includes(algorithm))
      throw invalid('cert.usageUnsupported', { algorithm, usage });
  }

  /** A CA certificate may be issued only within the issuer's path length. */
  function checkIntermediate(ca: CertCaTable, purpose: CertPurpose, pathLen: number | undefined) {
    if (purpose !== 'intermediate') return;
    checkPathLength(ca, pathLen);
  }

  interface IssueInput {
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

  /**
   * Signs one certificate and answers its row; the caller stores and audits it in one
   * transaction. Signing happens before any transaction opens: it reads the CA's key, and a
   * SQLite transaction holds the only connection.
   */
  async function signCertificate(domainId: string, input: IssueInput): Promise<CertCertificateTable> {
    const { ca } = input;
    checkIntermediate(ca, input.purpose, input.pathLen);
    const start = wholeSeconds(now());
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
    const issuer = caParts({ ...ca, cert_der: b64(input.caCert) });
    {
      const signer = signerOf(ca);
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
        crlUrl: crlUrl(ca.id),
        ocspUrl: ocspUrl(ca.id),
        known: {
          issuer: issuer.subjectText,
          ...(input.csr?.spki === input.spki ? { subjectKey: input.csr.read.subjectKey } : {}),
          ...(input.csr?.subjectName === input.subjectName ? { subject: input.csr.read.subject } : {}),
        },
      });
      const { der, description: described } = pki.finishCertificate(
        prepared,
        await signer.sign(prepared.tbs),
      );
      const row: CertCertificateTable = {
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
        created_at: iso(now()),
      };
      return row;
    }
  }

  /** Reads a PEM CSR, audits and refuses one whose signature does not match its key. */
  async function readCsr(csr: string, who: AuditEntry['who'], ip: string, action: string) {
    const parsed = checked('csr', () => pki.parseCsr(csr));
    // A key or signature that is not certified here says so, not that the signature is wrong.
    const refusal = pki.csrRefusal(parsed);
    if (refusal?.reason === 'algorithm') throw invalid('cert.csrAlgorithm', { algorithm: refusal.algorithm });
    if (refusal?.reason === 'digest')
      throw invalid('cert.csrDigest', { signature: refusal.signature, algorithm: parsed.algorithm });
    if (!parsed.signatureValid) {
      await audit({
        who,
        action,
        target: parsed.subject,
        result: 'failure',
        ip,
        details: { reason: 'csr-signature' },
      });
      throw invalid('cert.csrSignature');
    }
    return parsed;
  }

  /* ---- CRLs ---- */

  interface CachedCrl {
    der: Buffer;
    /** Strong validator for conditional fetches: a hash of the DER, made once per CRL. */
    etag: string;
    number: number;
    nextUpdate: number;
    checkedAt: number;
  }
  const crlCache = new Map<string, CachedCrl>();
  const crlEtag = (der: Buffer) => `"${createHash('sha256').update(der).digest('base64url').slice(0, 27)}"`;
  const crlBuilds = new Map<string, Promise<CachedCrl>>();

  function crlNeedsRebuild(row: { stale: number; this_update: string; next_update: string }, at: number) {
    const start = Date.parse(row.this_update);
    const end = Date.parse(row.next_update);
    return row.stale === 1 || at >= end - (end - start) * CRL_REFRESH_SHARE;
  }

  async function buildCrlFor(ca: CertCaTable): Promise<CachedCrl> {
    const previous = await store.findCrl(db, ca.id);
    const thisUpdate = wholeSeconds(now());
    const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY_HOURS * HOUR_MS);
    const revoked = await store.revokedEntries(db, ca.id, iso(thisUpdate));
    const caCert = unb64(ca.cert_der ?? '');
    const issuer = caParts({ ...ca, cert_der: b64(caCert) });
    const number = (previous?.number ?? 0) + 1;
    const der = await pki.buildCrl({
      issuerName: issuer.subject,
      issuerSki: issuer.ski,
      signer: signerOf(ca),
      number: BigInt(number),
      thisUpdate,
      nextUpdate,
      entries: revoked.map((r) => ({
        serial: r.serial,
        revokedAt: new Date(r.revoked_at ?? thisUpdate),
        ...(r.revocation_reason && r.revocation_reason !== 'unspecified'
          ? { reason: r.revocation_reason as pki.RevocationReason }
          : {}),
      })),
    });
    await store.saveCrl(db, {
      ca_id: ca.id,
      number,
      this_update: iso(thisUpdate),
      next_update: iso(nextUpdate),
      entries: revoked.length,
      der: b64(der),
      stale: 0,
    });
    await audit({
      who: null,
      action: 'cert.crl',
      target: ca.name,
      result: 'success',
      ip: '',
      objectId: ca.id,
      details: { number, entries: revoked.length },
    });
    return { der, etag: crlEtag(der), number, nextUpdate: nextUpdate.getTime(), checkedAt: Date.now() };
  }

  /** One build at a time per CA on this node; callers that arrive meanwhile share it. */
  function rebuildCrl(ca: CertCaTable): Promise<CachedCrl> {
    const running = crlBuilds.get(ca.id);
    if (running) return running;
    const build = buildCrlFor(ca)
      .then((crl) => {
        crlCache.set(ca.id, crl);
        return crl;
      })
      .finally(() => crlBuilds.delete(ca.id));
    crlBuilds.set(ca.id, build);
    return build;
  }

  /** The CA's current CRL: from memory for a few seconds, else from the database, rebuilt when due. */
  async function currentCrl(ca: CertCaTable): Promise<CachedCrl> {
    const at = Date.now();
    const cached = crlCache.get(ca.id);
    if (cached && at - cached.checkedAt < CRL_RECHECK_MS && at < cached.nextUpdate) return cached;
    const row = await store.findCrl(db, ca.id);
    if (!row || crlNeedsRebuild(row, now().getTime())) return rebuildCrl(ca);
    if (cached && cached.number === row.number) {
      cached.checkedAt = at;
      return cached;
    }
    const der = unb64(row.der);
    const fresh = {
      der,
      etag: crlEtag(der),
      number: row.number,
      nextUpdate: Date.parse(row.next_update),
      checkedAt: at,
    };
    crlCache.set(ca.id, fresh);
    return fresh;
  }

  /**
   * A revocation changed: the CRL is rebuilt now. When it cannot be (the CA's key is not in
   * use), the revocation stands, the CRL stays marked stale, and the refresh job and the next
   * fetch try again.
   */
  async function revocationChanged(ca: CertCaTable) {
    await store.markCrlStale(db, ca.id);
    crlCache.delete(ca.id);
    try {
      await rebuildCrl(ca);
    } catch (err) {
      deps.log?.warn({ ca: ca.id, err: err instanceof Error ? err.message : String(err) }, 'CRL not rebuilt');
    }
  }

  /* ---- external CAs ---- */

  function externalView(row: CertExternalTable) {
    const at = now().getTime();
    return {
      id: row.id,
      name: row.name,
      subject: row.subject,
      issuer: row.issuer,
      serial: row.serial,
      fingerprint: row.fingerprint,
      algorithm: row.algorithm,
      not_before: row.not_before,
      not_after: row.not_after,
      status:
        Date.parse(row.not_after) <= at
          ? ('expired' as const)
          : Date.parse(row.not_before) > at
            ? ('not-yet-valid' as const)
            : ('valid' as const),
      self_signed: row.self_signed === 1,
      created_at: row.created_at,
    };
  }

  async function loadExternal(actor: Actor, id: string) {
    const row = await store.findExternal(db, actor.domainId, id);
    if (!row) throw notFound('cert.externalNotFound', { id });
    return row;
  }

  const file = (filename: string, contentType: string, bytes: Buffer | string) => ({
    filename,
    content_type: contentType,
    content: (typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64'),
  });
  const safeFileName = (name: string) =>
    name.replace(/[^\p{L}\p{N}_.-]+/gu, '_').slice(0, 64) || 'certificate';

  const ensuring = new Map<string, Promise<CertCaTable | undefined>>();

  async function createDefaultCa(domainId: string): Promise<CertCaTable | undefined> {
    const current = await store.findDefaultCa(db, domainId);
    if (current || (await store.countCas(db, domainId)) > 0) return current;
    const domain = await deps.domainName(domainId);
    const system: Actor = {
      userId: '',
      username: 'system',
      domainId,
      domainName: domain ?? '',
      sessionId: '',
      permissions: new Set(),
      mustChangePassword: false,
      directory: null,
      kind: 'session',
      systemScope: false,
    };
    const meta: RequestMeta = { ip: '', lang: 'en', userAgent: '' };
    try {
      const created = await service.caCreate(system, meta, {
        name: DEFAULT_ROOT_CA_NAME,
        cn: `${DEFAULT_ROOT_CA_NAME}${domain ? ` (${domain})` : ''}`.slice(0, 64),
        algorithm: 'EC-P256',
      });
      await service.caSelfSign(system, meta, { id: created.id, validity_days: DEFAULT_CA_VALIDITY_DAYS });
    } catch (err) {
      // Another request of the same domain created it first (the name is unique per domain).
      if (!(err instanceof KspError && err.messageKey === 'cert.caNameTaken')) throw err;
    }
    return store.findDefaultCa(db, domainId);
  }

  const service = {
    /* local CAs */

    async caList(actor: Actor, query: QueryInput<typeof api.cert.caList>) {
      const { rows, total } = await store.listCas(
        db,
        actor.domainId,
        { name: query.name, state: query.state, type: query.type, now: iso(now()) },
        (query.page - 1) * query.page_size,
        query.page_size,
      );
      const ids = rows.map((r) => r.id);
      const issued = await store.issuedCounts(db, ids);
      const parents = await store.caNames(
        db,
        rows.map((r) => r.parent_id).filter((x): x is string => Boolean(x)),
      );
      return {
        data: rows.map((r) =>
          caView(r, issued.get(r.id) ?? 0, r.parent_id ? (parents.get(r.parent_id) ?? null) : null),
        ),
        total,
      };
    },

    caDetail: async (actor: Actor, id: string) => caDetailOf(await loadCa(actor, id)),

    async caCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caCreate>) {
      const subjectName = nameOf(body);
      const san = sanOf(body);
      if (await store.findCaByName(db, actor.domainId, body.name))
        throw conflict('cert.caNameTaken', { name: body.name });
      const id = newId();
      const pair = await deps.vault().createPair(actor, meta, {
        name: `ca-${id}`,
        algorithm: body.algorithm,
        profile: 'signing',
        ca: true,
        exportable: false,
        description: `Private key of local CA ${body.name}`,
      });
      const spki = pki.spkiOf(body.algorithm, pair.publicKey);
      const at = iso(now());
      const row: CertCaTable = {
        id,
        domain_id: actor.domainId,
        name: body.name,
        cn: body.cn,
        subject: pki.formatName(subjectName),
        algorithm: body.algorithm,
        key_bits: pki.describeSpki(spki).keyBits,
        key_id: pair.id,
        state: 'pending',
        type: null,
        parent_id: null,
        path_len: null,
        is_default: 0,
        issuer: null,
        serial: null,
        not_before: null,
        not_after: null,
        fingerprint: null,
        ski: pki.keyIdentifierOf(spki).toString('hex'),
        cert_der: null,
        chain_der: '[]',
        csr_der: null,
        created_at: at,
        updated_at: at,
      };
      const csr = await pki.buildCsr({ subjectName, san, signer: signerOf(row, spki) });
      row.csr_der = b64(csr);
      try {
        await db.transaction().execute(async (trx) => {
          await store.insertCa(trx, row);
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.ca.create',
              target: body.name,
              result: 'success',
              ip: meta.ip,
              objectId: id,
              details: { algorithm: body.algorithm, key_id: pair.id },
            },
            trx,
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('cert.caNameTaken', { name: body.name });
        throw err;
      }
      return caDetailOf(row);
    },

    async caSelfSign(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caSelfSign>) {
      const ca = await loadCa(actor, body.id);
      checkPending(ca);
      const spki = caSpki(ca);
      const start = wholeSeconds(now());
      const subjectName = pki.parseCsr(unb64(ca.csr_der ?? '')).subjectName;
      const der = await pki.buildCertificate({
        serial: pki.newSerial(),
        issuerName: subjectName,
        subjectName,
        notBefore: start,
        notAfter: new Date(start.getTime() + body.validity_days * DAY_MS),
        subjectSpki: spki,
        signer: signerOf(ca, spki),
        profile: { kind: 'ca', ...(body.path_len !== undefined ? { pathLen: body.path_len } : {}) },
      });
      return activateCa(actor, meta, ca, der, { type: 'root', parent_id: null }, 'cert.ca.self-sign');
    },

    async caSign(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caSign>) {
      if (body.id === body.parent_id) throw invalid('cert.caSelf');
      const ca = await loadCa(actor, body.id);
      checkPending(ca);
      const parent = await loadCa(actor, body.parent_id);
      const parentCert = checkIssuing(parent);
      checkPathLength(parent, body.path_len);
      const pathLen =
        body.path_len !== undefined
          ? body.path_len
          : parent.path_len !== null
            ? Math.max(0, parent.path_len - 1)
            : undefined;
      const start = wholeSeconds(now());
      const parentDescribed = pki.describeCertificate(parentCert);
      const der = await pki.buildCertificate({
        serial: pki.newSerial(),
        issuerName: pki.certificateSubject(parentCert),
        subjectName: pki.parseCsr(unb64(ca.csr_der ?? '')).subjectName,
        notBefore: start,
        notAfter: clampEnd(new Date(start.getTime() + body.validity_days * DAY_MS), parent.not_after),
        subjectSpki: caSpki(ca),
        signer: signerOf(parent),
        profile: { kind: 'ca', ...(pathLen !== undefined ? { pathLen } : {}) },
        ...(parentDescribed.ski
          ? { issuerSki: Buffer.from(parentDescribed.ski.replace(/:/g, ''), 'hex') }
          : {}),
        crlUrl: crlUrl(parent.id),
        ocspUrl: ocspUrl(parent.id),
      });
      return activateCa(
        actor,
        meta,
        ca,
        der,
        { type: 'intermediate', parent_id: parent.id },
        'cert.ca.sign',
        parent,
      );
    },

    async caInstall(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caInstall>) {
      const ca = await loadCa(actor, body.id);
      checkPending(ca);
      const certs = checked('certificate', () => pki.splitCertificateBundle(body.certificate));
      const spki = caSpki(ca);
      const own = certs.find((der) => pki.certificateSpki(der).equals(spki));
      if (!own) {
        await audit({
          who: subjectOf(actor),
          action: 'cert.ca.install',
          target: ca.name,
          result: 'failure',
          ip: meta.ip,
          objectId: ca.id,
          details: { reason: 'key-mismatch' },
        });
        throw invalid('cert.caKeyMismatch', { name: ca.name });
      }
      const described = pki.describeCertificate(own);
      if (!described.is_ca || !described.key_usage.includes('keyCertSign'))
        throw invalid('cert.caInstallNotCa');
      const at = now().getTime();
      if (Date.parse(described.not_before) > at || Date.parse(described.not_after) <= at)
        throw invalid('cert.caInstallNotValid', { from: described.not_before, to: described.not_after });
      const issuers = certs.filter((der) => der !== own);
      const ordered =
        issuers.length > 0 ? checked('certificate', () => pki.orderChain([own, ...issuers])) : [own];
      const selfSigned = described.subject === described.issuer && pki.verifyCertificateSignature(own, spki);
      return activateCa(
        actor,
        meta,
        ca,
        own,
        {
          type: selfSigned ? 'root' : 'intermediate',
          parent_id: null,
          chain_der: JSON.stringify(ordered.slice(1).map(b64)),
        },
        'cert.ca.install',
      );
    },

    async caUpdate(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caUpdate>) {
      const ca = await loadCa(actor, body.id);
      if (body.is_default && caState(ca) === 'pending')
        throw stateForbids('cert.caPending', { name: ca.name });
      if (body.is_default && caState(ca) === 'expired')
        throw stateForbids('cert.caExpired', { name: ca.name });
      try {
        await db.transaction().execute(async (trx) => {
          if (body.is_default) await store.clearDefaultCa(trx, actor.domainId);
          await store.updateCa(trx, ca.id, {
            ...(body.name ? { name: body.name } : {}),
            ...(body.is_default ? { is_default: 1 } : {}),
            updated_at: iso(now()),
          });
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.ca.update',
              target: body.name ?? ca.name,
              result: 'success',
              ip: meta.ip,
              objectId: ca.id,
              details: {
                ...(body.name ? { from: ca.name } : {}),
                ...(body.is_default ? { is_default: true } : {}),
              },
            },
            trx,
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('cert.caNameTaken', { name: body.name ?? ca.name });
        throw err;
      }
      return caDetailOf(await loadCa(actor, ca.id));
    },

    async caDelete(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CertCaTable[] = [];
      for (const id of ids) rows.push(await loadCa(actor, id));
      const at = iso(now());
      for (const row of rows) {
        // Another CA it signed, not deleted with it, or a certificate still valid (on hold counts).
        const children = await store.childCas(db, row.id);
        if (
          children.some((child) => !ids.includes(child)) ||
          (await store.hasValidCertificates(db, row.id, at, serialsGoingWith(row.id, rows)))
        )
          throw stateForbids('cert.caInUse', { name: row.name });
      }
      // Children before their parents.
      const order = [...rows].sort((a, b) => (a.parent_id === b.id ? -1 : b.parent_id === a.id ? 1 : 0));
      await db.transaction().execute(async (trx) => {
        for (const row of order) {
          await store.deleteCa(trx, row.id);
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.ca.delete',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { key_id: row.key_id },
            },
            trx,
          );
        }
      });
      for (const row of rows) crlCache.delete(row.id);
      return { deleted: rows.length };
    },

    async caDownload(actor: Actor, query: QueryInput<typeof api.cert.caDownload>) {
      const ca = await loadCa(actor, query.id);
      const base = safeFileName(ca.name);
      if (query.kind === 'csr') {
        if (!ca.csr_der) throw stateForbids('cert.noCsr');
        return file(`${base}.csr`, 'application/pkcs10', pki.toPem(unb64(ca.csr_der), 'CERTIFICATE REQUEST'));
      }
      if (!ca.cert_der)
        throw stateForbids(query.kind.startsWith('crl') ? 'cert.noCrl' : 'cert.caPending', { name: ca.name });
      const cert = unb64(ca.cert_der);
      switch (query.kind) {
        case 'cert-pem':
          return file(`${base}.pem`, 'application/x-pem-file', pki.toPem(cert, 'CERTIFICATE'));
        case 'cert-der':
          return file(`${base}.cer`, 'application/pkix-cert', cert);
        case 'chain-pem': {
          const chain = [cert, ...(await chainAbove(ca))];
          return file(
            `${base}-chain.pem`,
            'application/x-pem-file',
            chain.map((d) => pki.toPem(d, 'CERTIFICATE')).join(''),
          );
        }
        case 'chain-p7b':
          return file(
            `${base}.p7b`,
            'application/pkcs7-mime',
            pki.buildCertsOnlyP7b([cert, ...(await chainAbove(ca))]),
          );
        case 'crl-pem':
        case 'crl-der': {
          const crl = await currentCrl(ca);
          return query.kind === 'crl-der'
            ? file(`${base}.crl`, 'application/pkix-crl', crl.der)
            : file(`${base}-crl.pem`, 'application/x-pem-file', pki.toPem(crl.der, 'X509 CRL'));
        }
      }
    },

    /* certificates */

    async list(actor: Actor, query: QueryInput<typeof api.cert.list>) {
      const at = now();
      const { rows, total } = await store.listCertificates(
        db,
        actor.domainId,
        {
          name: query.name,
          caId: query.ca_id,
          status: query.status,
          purpose: query.purpose,
          source: query.source,
          expiringUntil:
            query.expiring === 'true' ? iso(new Date(at.getTime() + EXPIRING_DAYS * DAY_MS)) : undefined,
          now: iso(at),
        },
        (query.page - 1) * query.page_size,
        query.page_size,
      );
      const names = await store.caNames(db, [...new Set(rows.map((r) => r.ca_id))]);
      return { data: rows.map((r) => certView(r, names.get(r.ca_id) ?? null)), total };
    },

    detail: async (actor: Actor, id: string) => certDetailOf(await loadCert(actor, id)),

    async summary(actor: Actor) {
      const at = now();
      const figures = await store.certificateFigures(
        db,
        actor.domainId,
        iso(at),
        iso(new Date(at.getTime() + EXPIRING_DAYS * DAY_MS)),
      );
      return { ...figures, cas: await store.countCas(db, actor.domainId) };
    },

    async issue(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.issue>) {
      if (body.csr && body.key_algorithm) throw invalid('cert.csrAndKey');
      const ca = await loadCa(actor, body.ca_id);
      const caCert = checkIssuing(ca);
      checkIntermediate(ca, body.purpose, body.path_len);
      const san = sanOf(body);
      let subjectName: Buffer;
      let spki: Buffer;
      let algorithm: string;
      let keyBits: number;
      let csrDer: Buffer | null = null;
      let keyId: string | null = null;
      let csr: pki.ParsedCsr | undefined;
      const certId = newId();
      if (body.csr) {
        csr = await readCsr(body.csr, subjectOf(actor), meta.ip, 'cert.issue');
        if (body.purpose !== 'intermediate') checkUsage(csr.algorithm, body.usage);
        subjectName = body.cn ? nameOf({ ...body, cn: body.cn }) : csr.subjectName;
        spki = csr.spki;
        algorithm = csr.algorithm;
        keyBits = csr.keyBits;
        csrDer = csr.der;
        const merged = mergeSan(csr.san, san);
        Object.assign(san, merged);
      } else {
        if (!body.cn) throw invalid('cert.cnRequired');
        algorithm = body.key_algorithm ?? 'EC-P256';
        if (body.purpose !== 'intermediate') checkUsage(algorithm, body.usage);
        subjectName = nameOf({ ...body, cn: body.cn });
        const pair = await deps.vault().createPair(actor, meta, {
          // Named after the certificate (`cert-<id>`, and `cert-<id>.pub`), as the docs say.
          name: `cert-${certId}`,
          algorithm: algorithm as CaAlgorithm,
          profile:
            body.usage === 'encryption'
              ? algorithm.startsWith('EC-')
                ? 'key-agreement'
                : 'encryption'
              : 'signing',
          ca: body.purpose === 'intermediate',
          exportable: body.exportable,
          description: `Key pair of certificate ${body.name}`,
        });
        spki = pki.spkiOf(algorithm as CaAlgorithm, pair.publicKey);
        keyBits = pki.describeSpki(spki).keyBits;
        keyId = pair.id;
      }
      const issued = await signCertificate(actor.domainId, {
        id: certId,
        ca,
        caCert,
        name: body.name,
        subjectName,
        spki,
        algorithm,
        keyBits,
        purpose: body.purpose,
        usage: body.usage,
        san,
        validityDays: body.validity_days,
        pathLen: body.path_len,
        csrDer,
        keyId,
        exportable: keyId !== null && body.exportable,
        source: body.csr ? 'csr' : 'generated',
        ...(csr ? { csr } : {}),
      });
      // The certificate and its audit record are committed together, in one transaction with
      // those of the certificates issued at the same time (one flush for all of them).
      await deps.journal.write({
        rows: { cert_certificate: [issued] },
        audit: [
          auditRow(
            {
              who: subjectOf(actor),
              action: 'cert.issue',
              target: body.name,
              result: 'success',
              ip: meta.ip,
              objectId: issued.id,
              details: {
                ca: ca.name,
                serial: issued.serial,
                purpose: body.purpose,
                ...(keyId ? { key_id: keyId } : {}),
              },
            },
            now(),
          ),
        ],
      });
      return certDetailOf(issued, ca);
    },

    async revoke(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.revoke>) {
      const cert = await loadCert(actor, body.id);
      if (
        cert.revoked_at &&
        !(cert.revocation_reason === 'certificateHold' && body.reason !== 'certificateHold')
      )
        throw stateForbids('cert.alreadyRevoked', { name: cert.name });
      await db.transaction().execute(async (trx) => {
        const revokedAt = cert.revoked_at ?? iso(wholeSeconds(now()));
        await store.updateCertificate(trx, cert.id, {
          revoked_at: revokedAt,
          revocation_reason: body.reason,
        });
        await deps.revocations?.()?.changed(trx, cert.id, true, revokedAt);
        await audit(
          {
            who: subjectOf(actor),
            action: 'cert.revoke',
            target: cert.name,
            result: 'success',
            ip: meta.ip,
            objectId: cert.id,
            details: { serial: cert.serial, reason: body.reason },
          },
          trx,
        );
      });
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      if (ca) await revocationChanged(ca);
      return certDetailOf(await loadCert(actor, cert.id));
    },

    async resume(actor: Actor, meta: RequestMeta, id: string) {
      const cert = await loadCert(actor, id);
      if (cert.revocation_reason !== 'certificateHold')
        throw stateForbids('cert.notOnHold', { name: cert.name });
      await db.transaction().execute(async (trx) => {
        await store.updateCertificate(trx, cert.id, { revoked_at: null, revocation_reason: null });
        await deps.revocations?.()?.changed(trx, cert.id, false, iso(now()));
        await audit(
          {
            who: subjectOf(actor),
            action: 'cert.resume',
            target: cert.name,
            result: 'success',
            ip: meta.ip,
            objectId: cert.id,
            details: { serial: cert.serial },
          },
          trx,
        );
      });
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      if (ca) await revocationChanged(ca);
      return certDetailOf(await loadCert(actor, cert.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CertCertificateTable[] = [];
      for (const id of ids) {
        const row = await loadCert(actor, id);
        const status = certStatus(row);
        if (status === 'normal' || status === 'hold')
          throw stateForbids('cert.deleteValid', { name: row.name });
        rows.push(row);
      }
      const at = iso(now());
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          await store.updateCertificate(trx, row.id, { deleted_at: at });
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.delete',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { serial: row.serial },
            },
            trx,
          );
        }
      });
      return { deleted: rows.length };
    },

    async download(actor: Actor, body: QueryInput<typeof api.cert.download>) {
      const cert = await loadCert(actor, body.id);
      const base = safeFileName(cert.name);
      const der = unb64(cert.cert_der);
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      const chain = ca?.cert_der ? [unb64(ca.cert_der), ...(await chainAbove(ca))] : [];
      switch (body.kind) {
        case 'cert-pem':
          return file(`${base}.pem`, 'application/x-pem-file', pki.toPem(der, 'CERTIFICATE'));
        case 'cert-der':
          return file(`${base}.cer`, 'application/pkix-cert', der);
        case 'chain-pem':
          return file(
            `${base}-chain.pem`,
            'application/x-pem-file',
            [der, ...chain].map((d) => pki.toPem(d, 'CERTIFICATE')).join(''),
          );
        case 'chain-p7b':
          return file(`${base}.p7b`, 'application/pkcs7-mime', pki.buildCertsOnlyP7b([der, ...chain]));
        case 'csr':
          if (!cert.csr_der) throw stateForbids('cert.noCsr');
          return file(
            `${base}.csr`,
            'application/pkcs10',
            pki.toPem(unb64(cert.csr_der), 'CERTIFICATE REQUEST'),
          );
      }
    },

    async downloadKey(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.downloadKey>) {
      const cert = await loadCert(actor, body.id);
      const base = safeFileName(cert.name);
      const der = unb64(cert.cert_der);
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      const chain = ca?.cert_der ? [unb64(ca.cert_der), ...(await chainAbove(ca))] : [];
      if (!cert.key_id) throw stateForbids('cert.noPrivateKey');
      const algorithm = cert.algorithm as CaAlgorithm;
      if (body.kind === 'key-pkcs12' && !pki.PKCS12_ALGORITHMS.includes(algorithm))
        throw invalid('cert.pkcs12Unsupported', { algorithm });
      const refused = async (reason: string) =>
        audit({
          who: subjectOf(actor),
          action: 'cert.download-key',
          target: cert.name,
          result: 'failure',
          ip: meta.ip,
          objectId: cert.id,
          details: { reason },
        });
      let material: Buffer;
      try {
        material = await deps.vault().exportableMaterial(actor.domainId, cert.key_id, cert.name);
      } catch (err) {
        await refused(err instanceof KspError ? err.messageKey : 'error');
        throw err;
      }
      try {
        const publicKey = pki.certificateSpki(der);
        const out =
          body.kind === 'key-pkcs8'
            ? file(
                `${base}.key.pem`,
                'application/x-pem-file',
                pki.encryptPkcs8(algorithm, material, publicKey, body.password),
              )
            : file(
                `${base}.p12`,
                'application/x-pkcs12',
                await pki.buildPkcs12({
                  algorithm,
                  material,
                  storedPublicKey: publicKey,
                  certDer: der,
                  chainDers: chain,
                  password: body.password,
                  friendlyName: cert.name,
                }),
              );
        await audit({
          who: subjectOf(actor),
          action: 'cert.download-key',
          target: cert.name,
          result: 'success',
          ip: meta.ip,
          objectId: cert.id,
          details: { format: body.kind },
        });
        return out;
      } finally {
        material.fill(0);
      }
    },

    /**
     * A user's UKEY certificates (docs/modules.md#ukey-certificates). The token made the signing key
     * pair and its CSR; the signing certificate is issued from the domain's default CA and bound
     * to the user, so the UKEY login verifies against it. Dual (SM2): the server also makes the
     * encryption key pair, issues its certificate, and hands the private key out only as a
     * GM/T 0009 SM2EnvelopedKey under the token's signing key; it keeps no copy.
     */
    async ukeyIssue(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.ukeyIssue>) {
      await deps.ukeys().assertBindable(actor, body.user_id);
      if (body.spec === 'dual' && body.algorithm !== 'SM2') throw invalid('cert.ukeyDualSm2');
      const csr = await readCsr(body.csr, subjectOf(actor), meta.ip, 'cert.ukey.issue');
      if (csr.algorithm !== body.algorithm)
        throw invalid('cert.ukeyAlgorithm', { found: csr.algorithm, algorithm: body.algorithm });
      const ca = await service.ensureDefaultCa(actor.domainId);
      if (!ca || caState(ca) !== 'active') throw stateForbids('cert.noDefaultCa');
      const caCert = checkIssuing(ca);
      const common = {
        ca,
        caCert,
        subjectName: csr.subjectName,
        purpose: 'client' as const,
        san: csr.san,
        validityDays: body.validity_days,
        csrDer: null,
        keyId: null,
        exportable: false,
        source: 'ukey' as const,
      };
      const signing = await signCertificate(actor.domainId, {
        ...common,
        name: `UKEY ${body.serial} signing`,
        csr,
        spki: csr.spki,
        algorithm: csr.algorithm,
        keyBits: csr.keyBits,
        usage: 'signature',
        csrDer: csr.der,
      });
      let encryption: CertCertificateTable | null = null;
      let envelopedKey: string | null = null;
      if (body.spec === 'dual') {
        const pair = generateKey('SM2');
        try {
          const spki = pair.publicKey ?? Buffer.alloc(0);
          encryption = await signCertificate(actor.domainId, {
            ...common,
            name: `UKEY ${body.serial} encryption`,
            spki,
            algorithm: 'SM2',
            keyBits: 256,
            usage: 'encryption',
          });
          envelopedKey = b64(
            pki.buildSm2EnvelopedKey({
              encPrivateKey: pair.material,
              encPublicKey: spki,
              wrappingPublicKey: csr.spki,
            }),
          );
        } finally {
          pair.material.fill(0);
        }
      }
      // The binding checks that the caller may manage this user (domain, user:write) before
      // anything is stored.
      await deps.ukeys().bind(actor, meta, {
        id: body.user_id,
        serial: body.serial,
        certificate: pki.toPem(unb64(signing.cert_der), 'CERTIFICATE'),
      });
      await db.transaction().execute(async (trx) => {
        for (const row of [signing, encryption]) {
          if (!row) continue;
          await store.insertCertificate(trx, row);
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.ukey.issue',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: {
                user_id: body.user_id,
                ukey_type: body.ukey_type,
                serial: row.serial,
                spec: body.spec,
                usage: row.usage,
              },
            },
            trx,
          );
        }
      });
      const detailOf = async (row: CertCertificateTable) => certDetailOf(row);
      return {
        signing: await detailOf(signing),
        encryption: encryption ? await detailOf(encryption) : null,
        enveloped_key: envelopedKey,
        chain_pem: [caCert, ...(await chainAbove(ca))].map((d) => pki.toPem(d, 'CERTIFICATE')),
      };
    },

    /* external CAs */

    async externalList(actor: Actor, query: QueryInput<typeof api.cert.externalList>) {
      const { rows, total } = await store.listExternal(
        db,
        actor.domainId,
        query.name,
        (query.page - 1) * query.page_size,
        query.page_size,
      );
      return { data: rows.map(externalView), total };
    },

    async externalDetail(actor: Actor, id: string) {
      const row = await loadExternal(actor, id);
      return { ...externalView(row), certificate_pem: pki.toPem(unb64(row.cert_der), 'CERTIFICATE') };
    },

    async externalUpload(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.externalUpload>) {
      // PEM text, or Base64 of a DER certificate or .p7b.
      const content = body.content.includes('-----BEGIN ')
        ? body.content
        : Buffer.from(body.content.replace(/\s+/g, ''), 'base64');
      const certs = checked('content', () => pki.splitCertificateBundle(content));
      const described = certs.map((der) => ({ der, info: pki.describeCertificate(der) }));
      for (const { info } of described)
        if (!info.is_ca) throw invalid('cert.notCaCertificate', { subject: info.subject });
      if (certs.length > 1) checked('content', () => pki.orderChain(certs));
      const added: CertExternalTable[] = [];
      let skipped = 0;
      await db.transaction().execute(async (trx) => {
        for (const { der, info } of described) {
          const fingerprint = fingerprintOf(der);
          if (
            (await store.findExternalByFingerprint(trx, actor.domainId, fingerprint)) ||
            added.some((a) => a.fingerprint === fingerprint)
          ) {
            skipped++;
            continue;
          }
          const spki = pki.certificateSpki(der);
          const row: CertExternalTable = {
            id: newId(),
            domain_id: actor.domainId,
            name:
              (described.length === 1 && body.name) ||
              (pki.commonNameOf(pki.certificateSubject(der)) ?? info.subject),
            subject: info.subject,
            issuer: info.issuer,
            serial: info.serial,
            fingerprint,
            algorithm: info.algorithm,
            not_before: info.not_before,
            not_after: info.not_after,
            self_signed: info.subject === info.issuer && safeVerify(der, spki) ? 1 : 0,
            cert_der: b64(der),
            created_at: iso(now()),
          };
          await store.insertExternal(trx, row);
          added.push(row);
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.external.upload',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { fingerprint },
            },
            trx,
          );
        }
      });
      return { added: added.map(externalView), skipped };
    },

    async externalDelete(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CertExternalTable[] = [];
      for (const id of ids) rows.push(await loadExternal(actor, id));
      return db.transaction().execute(async (trx) => {
        const deleted = await store.deleteExternal(trx, actor.domainId, ids);
        for (const row of rows)
          await audit(
            {
              who: subjectOf(actor),
              action: 'cert.external.delete',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
            },
            trx,
          );
        return { deleted };
      });
    },

    /**
     * Valid certificates and those of them ending within `days` (30 by default): of one
     * domain, or of all (`null`).
     */
    async expiringFigures(domainId: string | null, days: number = EXPIRING_DAYS) {
      const at = now();
      const figures = await store.certificateFigures(
        db,
        domainId,
        iso(at),
        iso(new Date(at.getTime() + days * DAY_MS)),
      );
      return { valid: figures.valid, expiring: figures.expiring };
    },

    /** Trust anchors of a domain (client certificates of later areas are checked against them). */
    async trustAnchors(domainId: string): Promise<Buffer[]> {
      const rows = await db
        .selectFrom('cert_external')
        .select('cert_der')
        .where('domain_id', '=', domainId)
        .execute();
      return rows.map((r) => unb64(r.cert_der));
    },

    /**
     * Whether a client certificate (an agent's) may authenticate: issued by an active local CA
     * of any domain (its signature checked), valid now, not revoked or on hold, and made for
     * client authentication. Answers the issuing CA and the certificate's identity, or why not.
     */
    async checkClientCertificate(der: Buffer): Promise<ClientCertificateCheck> {
      let described: ReturnType<typeof pki.describeCertificate>;
      let subjectCn: string | null;
      try {
        described = pki.describeCertificate(der);
        subjectCn = pki.commonNameOf(pki.certificateSubject(der));
      } catch {
        return { ok: false, reason: 'certificate' };
      }
      const at = now();
      let issuer: CertCaTable | undefined;
      for (const ca of await store.issuerCandidates(db, described.aki, described.issuer)) {
        if (!ca.cert_der || caState(ca, at) !== 'active') continue;
        if (safeVerify(der, pki.certificateSpki(unb64(ca.cert_der)))) {
          issuer = ca;
          break;
        }
      }
      if (!issuer) return { ok: false, reason: 'unknownCa' };
      const found = await store.findBySerial(db, issuer.id, described.serial);
      // Signed by our CA yet unknown to it: not something this server issued and tracks.
      if (!found) return { ok: false, reason: 'unknownCa' };
      const ca = { id: issuer.id, name: issuer.name, domainId: issuer.domain_id };
      const identity = { ca, serial: described.serial, cn: subjectCn ?? described.subject };
      if (Date.parse(described.not_before) > at.getTime() || Date.parse(described.not_after) <= at.getTime())
        return { ok: false, reason: 'certValidity', ...identity };
      if (found.revoked_at) return { ok: false, reason: 'revoked', ...identity };
      if (described.is_ca || !described.ext_key_usage.includes('clientAuth'))
        return { ok: false, reason: 'notClient', ...identity };
      return { ok: true, ...identity, spki: pki.certificateSpki(der) };
    },

    /**
     * A client certificate for an agent of `domainId` (modules/client: enrolment and renewal) from
     * the domain's default CA, `validityDays` long: for the key and subject of a PEM PKCS#10 CSR
     * (its signature checked, a private key refused, a refusal audited as `action`) or of a
     * certificate issued before (`renew`: a certificate id of that domain). Signed now; nothing is
     * stored until the caller runs `store(trx)` inside its own transaction.
     */
    async prepareClientCertificate(
      domainId: string,
      from: { csr: string; ip: string; action: string } | { renew: string },
      validityDays: number,
    ) {
      let input: Pick<
        IssueInput,
        'name' | 'subjectName' | 'spki' | 'algorithm' | 'keyBits' | 'san' | 'csrDer'
      >;
      if ('csr' in from) {
        const csr = await readCsr(from.csr, null, from.ip, from.action);
        input = {
          name: pki.commonNameOf(csr.subjectName) ?? csr.subject,
          subjectName: csr.subjectName,
          spki: csr.spki,
          algorithm: csr.algorithm,
          keyBits: csr.keyBits,
          san: csr.san,
          csrDer: csr.der,
        };
      } else {
        const old = await store.findCertificate(db, domainId, from.renew);
        if (!old) throw notFound('cert.notFound', { id: from.renew });
        const oldDer = unb64(old.cert_der);
        input = {
          name: old.name,
          subjectName: pki.certificateSubject(oldDer),
          spki: pki.certificateSpki(oldDer),
          algorithm: old.algorithm,
          keyBits: old.key_bits,
          san: { dns: [], ips: [], emails: [] },
          csrDer: null,
        };
      }
      const ca = await service.ensureDefaultCa(domainId);
      if (!ca || caState(ca) !== 'active') throw stateForbids('cert.noDefaultCa');
      const caCert = checkIssuing(ca);
      const row = await signCertificate(domainId, {
        ...input,
        ca,
        caCert,
        purpose: 'client',
        usage: 'signature',
        validityDays,
        keyId: null,
        exportable: false,
        source: 'sign-cert',
      });
      const der = unb64(row.cert_der);
      const chain = [caCert, ...(await chainAbove(ca))];
      return {
        id: row.id,
        serial: row.serial,
        notBefore: row.not_before,
        notAfter: row.not_after,
        ca: { id: ca.id, name: ca.name },
        certificatePem: pki.toPem(der, 'CERTIFICATE'),
        chainPem: chain.map((d) => pki.toPem(d, 'CERTIFICATE')),
        store: (trx: Executor) => store.insertCertificate(trx, row),
      };
    },

    /**
     * Revokes a certificate of `domainId` for the client module (a revoked or deleted client),
     * without an actor of the cert area: the client module audits the act. An already revoked
     * certificate stays as it is.
     */
    async revokeClientCertificate(
      domainId: string,
      id: string,
      reason: 'cessationOfOperation' | 'superseded',
    ) {
      const cert = await store.findCertificate(db, domainId, id);
      if (!cert || cert.revoked_at) return;
      await store.updateCertificate(db, cert.id, {
        revoked_at: iso(wholeSeconds(now())),
        revocation_reason: reason,
      });
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      if (ca) await revocationChanged(ca);
    },

    /** The state of a certificate of `domainId`: its validity and whether it is revoked (client pages). */
    async certificateState(domainId: string, id: string) {
      const cert = await store.findCertificate(db, domainId, id);
      if (!cert) return undefined;
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      return {
        serial: cert.serial,
        notBefore: cert.not_before,
        notAfter: cert.not_after,
        caName: ca?.name ?? '',
        revoked: !!cert.revoked_at,
      };
    },

    /* online issuing */

    async signOnline(meta: RequestMeta, body: Input<typeof api.cert.sign>) {
      const csr = await readCsr(body.csr, null, meta.ip, 'cert.sign');
      try {
        const token = await deps.tokens().lookup(body.token);
        const ca = await service.ensureDefaultCa(token.domainId);
        if (!ca || caState(ca) !== 'active') throw stateForbids('cert.noDefaultCa');
        const caCert = checkIssuing(ca);
        const usage: CertUsage = 'signature';
        checkUsage(csr.algorithm, usage);
        const row = await signCertificate(token.domainId, {
          ca,
          caCert,
          name: pki.commonNameOfName(csr.read.subject) ?? csr.subject,
          subjectName: csr.subjectName,
          csr,
          spki: csr.spki,
          algorithm: csr.algorithm,
          keyBits: csr.keyBits,
          purpose: 'client',
          usage,
          san: csr.san,
          validityDays: token.certValidityDays,
          csrDer: csr.der,
          keyId: null,
          exportable: false,
          source: 'sign-cert',
        });
        // The use is spent and the certificate kept together: a token exhausted meanwhile
        // (a parallel request took the last use) leaves no certificate behind.
        const remaining = await db.transaction().execute(async (trx) => {
          const spent = await deps.tokens().redeem(trx, body.token, 'any');
          await store.insertCertificate(trx, row);
          await audit(
            {
              who: {
                userId: null,
                username: `token:${spent.name}`,
                domainId: spent.domainId,
                domainName: '',
              },
              action: 'cert.sign',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { token: spent.name, ca: ca.name, serial: row.serial },
            },
            trx,
          );
          return spent.remaining;
        });
        const der = unb64(row.cert_der);
        const chain = [caCert, ...(await chainAbove(ca))];
        return {
          certificate_pem: pki.toPem(der, 'CERTIFICATE'),
          chain_pem: chain.map((d) => pki.toPem(d, 'CERTIFICATE')),
          p7b: b64(pki.buildCertsOnlyP7b([der, ...chain])),
          serial: row.serial,
          not_after: row.not_after,
          remaining,
        };
      } catch (err) {
        await audit({
          who: null,
          action: 'cert.sign',
          target: csr.subject,
          result: 'failure',
          ip: meta.ip,
          details: { reason: err instanceof KspError ? err.messageKey : 'error' },
        });
        throw err;
      }
    },

    /**
     * The domain's default CA. A domain that has no CA at all gets its root CA now (EC P-256,
     * ten years, named "Root CA", made by the system): issuing that needs one (online issuing,
     * client enrolment) creates it on demand. A domain that has CAs but no active default gets
     * none: an administrator chose that.
     */
    async ensureDefaultCa(domainId: string): Promise<CertCaTable | undefined> {
      // One creation per domain at a time on this node; other nodes meet the unique name.
      const running = ensuring.get(domainId);
      if (running) return running;
      const work = createDefaultCa(domainId).finally(() => ensuring.delete(domainId));
      ensuring.set(domainId, work);
      return work;
    },

    /* public CRL and OCSP */

    /** An active CA's current DER CRL with its validator and end of validity (ms), for the public URL; null when there is no such CA. */
    async publicCrl(caId: string): Promise<{ der: Buffer; etag: string; nextUpdate: number } | null> {
      // Checked against the database in the last few seconds: answered from memory, without
      // reading the CA row either (a CA deleted on another node stops being served within
      // those seconds; its CRL stays valid until its nextUpdate anyway).
      const cached = crlCache.get(caId);
      const at = Date.now();
      if (cached && at - cached.checkedAt < CRL_RECHECK_MS && at < cached.nextUpdate) {
        return { der: cached.der, etag: cached.etag, nextUpdate: cached.nextUpdate };
      }
      const ca = await store.findCaAnyDomain(db, caId);
      if (!ca || ca.state !== 'active') return null;
      const { der, etag, nextUpdate } = await currentCrl(ca);
      return { der, etag, nextUpdate };
    },

    /** An RFC 6960 answer to a DER OCSP request about certificates of one CA. */
    async ocsp(caId: string, requestDer: Buffer): Promise<Buffer> {
      const ca = await store.findCaAnyDomain(db, caId);
      if (!ca?.cert_der || ca.state !== 'active') return pki.ocspErrorResponse('unauthorized');
      let request: ReturnType<typeof pki.parseOcspRequest>;
      try {
        request = pki.parseOcspRequest(requestDer);
      } catch {
        return pki.ocspErrorResponse('malformedRequest');
      }
      const caCert = unb64(ca.cert_der);
      const at = wholeSeconds(now());
      const responses = [];
      for (const single of request.requests) {
        const hashes = pki.isOcspHash(single.hashAlgorithm)
          ? pki.issuerHashes(caCert, single.hashAlgorithm)
          : null;
        const ours =
          hashes !== null &&
          hashes.issuerNameHash.equals(single.issuerNameHash) &&
          hashes.issuerKeyHash.equals(single.issuerKeyHash);
        const found = ours ? await store.findBySerial(db, ca.id, single.serial) : undefined;
        const base = {
          certId: single.certId,
          thisUpdate: at,
          nextUpdate: new Date(at.getTime() + OCSP_VALIDITY_MS),
        };
        if (!found) responses.push({ ...base, status: 'unknown' as const });
        else if (found.revoked_at)
          responses.push({
            ...base,
            status: 'revoked' as const,
            revokedAt: new Date(found.revoked_at),
            ...(found.revocation_reason ? { reason: found.revocation_reason as pki.RevocationReason } : {}),
          });
        else responses.push({ ...base, status: 'good' as const });
      }
      try {
        return await pki.buildOcspResponse({
          responderCertDer: caCert,
          signer: signerOf(ca),
          producedAt: at,
          ...(request.nonce ? { nonce: request.nonce } : {}),
          responses,
        });
      } catch {
        return pki.ocspErrorResponse('internalError');
      }
    },

    /** The job: rebuilds CRLs that are stale or near their next update. */
    async refreshCrls(): Promise<number> {
      const at = now().getTime();
      const due = await store.crlsToRefresh(
        db,
        iso(new Date(at + CRL_VALIDITY_HOURS * HOUR_MS * CRL_REFRESH_SHARE)),
      );
      let rebuilt = 0;
      for (const { id } of due) {
        const ca = await store.findCaAnyDomain(db, id);
        if (!ca || caState(ca) !== 'active') continue;
        await rebuildCrl(ca);
        rebuilt++;
      }
      return rebuilt;
    },

    /** Forgets cached CRLs (shutdown). */
    close() {
      crlCache.clear();
    },
  };
  return service;

  function safeVerify(der: Buffer, spki: Buffer): boolean {
    try {
      return pki.verifyCertificateSignature(der, spki);
    } catch {
      return false;
    }
  }
}

export type CertService = ReturnType<typeof createCertService>;

/** The CA of an agent certificate and the certificate's identity (serial in hex, common name). */
export interface ClientCertificateIdentity {
  ca: { id: string; name: string; domainId: string };
  serial: string;
  cn: string;
}

export type ClientCertificateCheck =
  | ({ ok: true; spki: Buffer } & ClientCertificateIdentity)
  | { ok: false; reason: 'certificate' | 'unknownCa' }
  | ({ ok: false; reason: 'certValidity' | 'revoked' | 'notClient' } & ClientCertificateIdentity);
