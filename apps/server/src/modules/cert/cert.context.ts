import {
  EXPIRING_DAYS,
  signOnlyAlgorithms,
  type CaAlgorithm,
  type CertPurpose,
  type CertStatus,
  type CertUsage,
  type CrlReason,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { CertificateRevocations } from '../../platform/cert-revocations.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { Journal } from '../../platform/db/journal.js';
import type { CertCaTable, CertCertificateTable } from '../../platform/db/schema.js';
import { invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';
import { checked, DAY_MS, pemChain, unb64 } from './cert.input.js';

/** What the certificates area needs from the server and the modules before it. */
export interface CertDeps {
  db: Db;
  clock: Clock;
  /** Issuing's group commit: certificates issued together share one transaction and flush. */
  journal: Journal;
  audit: AuditWriter;
  vault: () => ModuleServices['keyVault'];
  tokens: () => ModuleServices['registrationTokens'];
  ukeys: () => ModuleServices['ukeys'];
  log?: { warn(details: object, message: string): void };
  /** The name of a domain (for the CA a domain gets on demand). */
  domainName: (domainId: string) => Promise<string | undefined>;
  /** The public base URL written into certificates (CRL distribution point, OCSP). */
  pkiBaseUrl: () => string;
  /** Who follows a revocation (the client module), when installed. */
  revocations?: () => CertificateRevocations | undefined;
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

/** The first fields of a CA's and a certificate's view: what they are called and who issued them. */
const namesOf = <T extends CertCaTable | CertCertificateTable>(
  row: T,
): Pick<T, 'id' | 'name' | 'cn' | 'subject' | 'issuer'> => ({
  id: row.id,
  name: row.name,
  cn: row.cn,
  subject: row.subject,
  issuer: row.issuer,
});

/** Who a refused CSR's record names: the signed-in caller, or nobody (a token's or an agent's request). */
export type CsrReader = { actor: Actor | null; ip: string; action: string };

/**
 * The pieces every job of the area shares (docs/modules.md#certificates): finding CAs and
 * certificates in the caller's domain, a CA's state, parts, signer and chain, the views of
 * the answers, and reading a CSR.
 */
export function createCertContext(deps: CertDeps) {
  const { db } = deps;
  const now = () => deps.clock();
  const crlUrl = (caId: string) => `${deps.pkiBaseUrl()}/pki/crl/${caId}.crl`;
  const ocspUrl = (caId: string) => `${deps.pkiBaseUrl()}/pki/ocsp/${caId}`;

  async function loadCa(actor: Actor, id: string, trx: Executor = db) {
    const row = await store.findCa(trx, actor.domainId, id);
    if (!row) throw notFound('cert.caNotFound', { id });
    return row;
  }

  function caState(row: CertCaTable, at = now()): 'pending' | 'active' | 'expired' {
    if (row.state === 'pending') return 'pending';
    return row.not_after && Date.parse(row.not_after) <= at.getTime() ? 'expired' : 'active';
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

  /** An active CA that may issue now (not pending, not expired): its certificate. */
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

  /** A CA's certificate and the chain above it; none while it has no certificate. */
  const chainFrom = async (ca: CertCaTable | undefined): Promise<Buffer[]> =>
    ca?.cert_der ? [unb64(ca.cert_der), ...(await chainAbove(ca))] : [];

  function caView(row: CertCaTable, issued: number, parentName: string | null) {
    return {
      ...namesOf(row),
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
    const crl = await store.findCrl(db, row.id);
    return {
      ...caView(row, issued, parentName),
      certificate_pem: row.cert_der ? pki.toPem(unb64(row.cert_der), 'CERTIFICATE') : null,
      csr_pem: row.csr_der ? pki.toPem(unb64(row.csr_der), 'CERTIFICATE REQUEST') : null,
      chain_pem: pemChain(await chainFrom(row)),
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
      ...namesOf(row),
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
    const usages = JSON.parse(row.key_usage) as { key_usage: string[]; ext_key_usage: string[] };
    return {
      ...certView(row, ca?.name ?? null),
      certificate_pem: pki.toPem(unb64(row.cert_der), 'CERTIFICATE'),
      chain_pem: pemChain(await chainFrom(ca)),
      csr_pem: row.csr_der ? pki.toPem(unb64(row.csr_der), 'CERTIFICATE REQUEST') : null,
      key_usage: usages.key_usage,
      ext_key_usage: usages.ext_key_usage,
    };
  }

  function checkUsage(algorithm: string, usage: CertUsage) {
    if (usage !== 'signature' && (signOnlyAlgorithms as readonly string[]).includes(algorithm))
      throw invalid('cert.usageUnsupported', { algorithm, usage });
  }

  /** Reads a PEM CSR, audits and refuses one whose signature does not match its key. */
  async function readCsr(csr: string, by: CsrReader) {
    const parsed = checked('csr', () => pki.parseCsr(csr));
    // A key or signature that is not certified here says so, not that the signature is wrong.
    const refusal = pki.csrRefusal(parsed);
    if (refusal?.reason === 'algorithm') throw invalid('cert.csrAlgorithm', { algorithm: refusal.algorithm });
    if (refusal?.reason === 'digest')
      throw invalid('cert.csrDigest', { signature: refusal.signature, algorithm: parsed.algorithm });
    if (!parsed.signatureValid) {
      const record = {
        action: by.action,
        target: parsed.subject,
        result: 'failure' as const,
        details: { reason: 'csr-signature' },
      };
      if (by.actor) await deps.audit.byCaller(db, by.actor, by, record);
      else await deps.audit.write(db, { who: null, ip: by.ip, ...record });
      throw invalid('cert.csrSignature');
    }
    return parsed;
  }

  /** Whether `der` is signed by the key `spki`; false for anything unreadable. */
  function safeVerify(der: Buffer, spki: Buffer): boolean {
    try {
      return pki.verifyCertificateSignature(der, spki);
    } catch {
      return false;
    }
  }

  return {
    deps,
    db,
    now,
    crlUrl,
    ocspUrl,
    loadCa,
    caState,
    caParts,
    caSpki,
    signerOf,
    checkIssuing,
    chainAbove,
    chainFrom,
    caView,
    caDetailOf,
    loadCert,
    certStatus,
    certView,
    certDetailOf,
    checkUsage,
    readCsr,
    safeVerify,
  };
}

export type CertContext = ReturnType<typeof createCertContext>;
