import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { CertCaTable } from '../../platform/db/schema.js';
import { notFound } from '../../platform/errors.js';
import type { Executor } from '../../platform/db/database.js';
import type { DefaultIssuer } from './cert.ca.js';
import type { CertContext } from './cert.context.js';
import type { Crls } from './cert.crl.js';
import { iso, nameOf, pemChain, unb64, wholeSeconds } from './cert.input.js';
import { signCertificate, type IssueInput } from './cert.signing.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';

const generatePair = promisify(generateKeyPair) as unknown as (
  type: 'ec' | 'rsa',
  options: { namedCurve: string } | { modulusLength: number },
) => Promise<{ publicKey: KeyObject; privateKey: KeyObject }>;

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

/** What a client certificate is made for: its subject and key. */
type ClientCertificateInput = Pick<
  IssueInput,
  'name' | 'subjectName' | 'spki' | 'algorithm' | 'keyBits' | 'san' | 'csrDer'
>;

/**
 * Agents' client certificates for the client module: enrolment and renewal from the domain's
 * default CA, revocation when a client goes, and the check of a certificate an agent presents.
 */
export function createAgentCertificates(ctx: CertContext, defaultIssuer: DefaultIssuer, crls: Crls) {
  const { db, now } = ctx;

  /**
   * A client certificate for `input` from the domain's default CA, signed now: its DER, the
   * chain's, and the answer of the prepare calls (nothing stored until the caller runs `store(trx)`).
   */
  async function signClientCertificate(
    domainId: string,
    input: ClientCertificateInput,
    validityDays: number,
  ) {
    const { ca, caCert, chain } = await defaultIssuer(domainId);
    const row = await signCertificate(ctx, domainId, {
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
    const certDer = unb64(row.cert_der);
    const chainDers = await chain();
    return {
      certDer,
      chainDers,
      answer: {
        id: row.id,
        serial: row.serial,
        notBefore: row.not_before,
        notAfter: row.not_after,
        ca: { id: ca.id, name: ca.name },
        certificatePem: pki.toPem(certDer, 'CERTIFICATE'),
        chainPem: pemChain(chainDers),
        store: (trx: Executor) => store.insertCertificate(trx, row),
      },
    };
  }

  return {
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
        if (!ca.cert_der || ctx.caState(ca, at) !== 'active') continue;
        if (ctx.safeVerify(der, pki.certificateSpki(unb64(ca.cert_der)))) {
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
      let input: ClientCertificateInput;
      if ('csr' in from) {
        const csr = await ctx.readCsr(from.csr, { actor: null, ip: from.ip, action: from.action });
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
      return (await signClientCertificate(domainId, input, validityDays)).answer;
    },

    /**
     * A client certificate for a key KSP makes now (a KMIP client made in the console without a
     * CSR): an `EC-P256` or `RSA-2048` key pair, the certificate for `/CN=<cn>` from the domain's
     * default CA, and both in a PKCS#12 file sealed with `password`. The private key is not kept:
     * it leaves in the file, once. Nothing is stored until the caller runs `store(trx)`.
     */
    async prepareGeneratedClientCertificate(
      domainId: string,
      o: { cn: string; algorithm: 'EC-P256' | 'RSA-2048'; password: string },
      validityDays: number,
    ) {
      const pair =
        o.algorithm === 'EC-P256'
          ? await generatePair('ec', { namedCurve: 'P-256' })
          : await generatePair('rsa', { modulusLength: 2048 });
      const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
      const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'der' });
      try {
        const { certDer, chainDers, answer } = await signClientCertificate(
          domainId,
          {
            name: o.cn,
            subjectName: nameOf({ cn: o.cn }),
            spki,
            algorithm: o.algorithm,
            keyBits: o.algorithm === 'EC-P256' ? 256 : 2048,
            san: { dns: [], ips: [], emails: [] },
            csrDer: null,
          },
          validityDays,
        );
        const pkcs12 = await pki.buildPkcs12({
          algorithm: o.algorithm,
          material: pkcs8,
          storedPublicKey: spki,
          certDer,
          chainDers,
          password: o.password,
          friendlyName: o.cn,
        });
        return { ...answer, pkcs12 };
      } finally {
        pkcs8.fill(0);
      }
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
      if (ca) await crls.revocationChanged(ca);
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
  };
}
