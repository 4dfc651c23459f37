import { DEFAULT_CA_VALIDITY_DAYS, type api, type Input, type QueryInput } from '@ksp/contracts';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { CertCaTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { systemActor, systemMeta } from '../../platform/system-actor.js';
import type { CertContext } from './cert.context.js';
import type { Crls } from './cert.crl.js';
import {
  b64,
  checked,
  DAY_MS,
  fingerprintOf,
  iso,
  nameOf,
  newId,
  sanOf,
  unb64,
  wholeSeconds,
} from './cert.input.js';
import { clampEnd } from './cert.signing.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';
import { caCertificateRecord, serialsGoingWith } from './ca-certificate-record.js';
import { checkPathLength } from './path-length.js';

/** The root CA a domain gets on demand. */
const DEFAULT_ROOT_CA_NAME = 'Root CA';

function checkPending(ca: CertCaTable) {
  if (ca.state !== 'pending') throw stateForbids('cert.caNotPending', { name: ca.name });
}

/**
 * Local CAs (docs/modules.md#certificates): pending (key pair and CSR) → active (self-signed,
 * signed by another local CA, or an externally signed certificate installed) → expired; the
 * domain's default CA, made on demand when the domain has none.
 */
export function createCaLifecycle(ctx: CertContext, crls: Crls) {
  const { db, deps, now } = ctx;

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
      await deps.audit.byCaller(trx, actor, meta, {
        action,
        target: ca.name,
        objectId: ca.id,
        details: { serial: described.serial, ...(fields.parent_id ? { parent_id: fields.parent_id } : {}) },
      });
    });
    const active = await ctx.loadCa(actor, ca.id);
    // Its first CRL is published at once (empty), so relying parties find one at the URL its
    // certificates will name. A CA whose key cannot sign yet gets it from the job later.
    await crls.published(active);
    return ctx.caDetailOf(active);
  }

  const ensuring = new Map<string, Promise<CertCaTable | undefined>>();

  async function createDefaultCa(domainId: string): Promise<CertCaTable | undefined> {
    const current = await store.findDefaultCa(db, domainId);
    if (current || (await store.countCas(db, domainId)) > 0) return current;
    const domain = await deps.domainName(domainId);
    const system = systemActor({ username: 'system', domainId, domainName: domain ?? '' });
    const meta = systemMeta();
    try {
      const created = await lifecycle.caCreate(system, meta, {
        name: DEFAULT_ROOT_CA_NAME,
        cn: `${DEFAULT_ROOT_CA_NAME}${domain ? ` (${domain})` : ''}`.slice(0, 64),
        algorithm: 'EC-P256',
      });
      await lifecycle.caSelfSign(system, meta, { id: created.id, validity_days: DEFAULT_CA_VALIDITY_DAYS });
    } catch (err) {
      // Another request of the same domain created it first (the name is unique per domain).
      if (!(err instanceof KspError && err.messageKey === 'cert.caNameTaken')) throw err;
    }
    return store.findDefaultCa(db, domainId);
  }

  const lifecycle = {
    async caList(actor: Actor, query: QueryInput<typeof api.cert.caList>) {
      const { rows, total } = await store.listCas(
        db,
        actor.domainId,
        { name: query.name, state: query.state, type: query.type, now: iso(now()) },
        query,
      );
      const issued = await store.issuedCounts(
        db,
        rows.map((r) => r.id),
      );
      const parents = await store.caNames(
        db,
        rows.map((r) => r.parent_id).filter((x): x is string => Boolean(x)),
      );
      return {
        data: rows.map((r) =>
          ctx.caView(r, issued.get(r.id) ?? 0, r.parent_id ? (parents.get(r.parent_id) ?? null) : null),
        ),
        total,
      };
    },

    caDetail: async (actor: Actor, id: string) => ctx.caDetailOf(await ctx.loadCa(actor, id)),

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
      const csr = await pki.buildCsr({ subjectName, san, signer: ctx.signerOf(row, spki) });
      row.csr_der = b64(csr);
      try {
        await db.transaction().execute(async (trx) => {
          await store.insertCa(trx, row);
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.ca.create',
            target: body.name,
            objectId: id,
            details: { algorithm: body.algorithm, key_id: pair.id },
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('cert.caNameTaken', { name: body.name });
        throw err;
      }
      return ctx.caDetailOf(row);
    },

    async caSelfSign(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caSelfSign>) {
      const ca = await ctx.loadCa(actor, body.id);
      checkPending(ca);
      const spki = ctx.caSpki(ca);
      const start = wholeSeconds(now());
      const subjectName = pki.parseCsr(unb64(ca.csr_der ?? '')).subjectName;
      const der = await pki.buildCertificate({
        serial: pki.newSerial(),
        issuerName: subjectName,
        subjectName,
        notBefore: start,
        notAfter: new Date(start.getTime() + body.validity_days * DAY_MS),
        subjectSpki: spki,
        signer: ctx.signerOf(ca, spki),
        profile: { kind: 'ca', ...(body.path_len !== undefined ? { pathLen: body.path_len } : {}) },
      });
      return activateCa(actor, meta, ca, der, { type: 'root', parent_id: null }, 'cert.ca.self-sign');
    },

    async caSign(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.caSign>) {
      if (body.id === body.parent_id) throw invalid('cert.caSelf');
      const ca = await ctx.loadCa(actor, body.id);
      checkPending(ca);
      const parent = await ctx.loadCa(actor, body.parent_id);
      const parentCert = ctx.checkIssuing(parent);
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
        subjectSpki: ctx.caSpki(ca),
        signer: ctx.signerOf(parent),
        profile: { kind: 'ca', ...(pathLen !== undefined ? { pathLen } : {}) },
        ...(parentDescribed.ski
          ? { issuerSki: Buffer.from(parentDescribed.ski.replace(/:/g, ''), 'hex') }
          : {}),
        crlUrl: ctx.crlUrl(parent.id),
        ocspUrl: ctx.ocspUrl(parent.id),
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
      const ca = await ctx.loadCa(actor, body.id);
      checkPending(ca);
      const certs = checked('certificate', () => pki.splitCertificateBundle(body.certificate));
      const spki = ctx.caSpki(ca);
      const own = certs.find((der) => pki.certificateSpki(der).equals(spki));
      if (!own) {
        await deps.audit.byCaller(db, actor, meta, {
          action: 'cert.ca.install',
          target: ca.name,
          result: 'failure',
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
      const ca = await ctx.loadCa(actor, body.id);
      if (body.is_default && ctx.caState(ca) === 'pending')
        throw stateForbids('cert.caPending', { name: ca.name });
      if (body.is_default && ctx.caState(ca) === 'expired')
        throw stateForbids('cert.caExpired', { name: ca.name });
      try {
        await db.transaction().execute(async (trx) => {
          if (body.is_default) await store.clearDefaultCa(trx, actor.domainId);
          await store.updateCa(trx, ca.id, {
            ...(body.name ? { name: body.name } : {}),
            ...(body.is_default ? { is_default: 1 } : {}),
            updated_at: iso(now()),
          });
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.ca.update',
            target: body.name ?? ca.name,
            objectId: ca.id,
            details: {
              ...(body.name ? { from: ca.name } : {}),
              ...(body.is_default ? { is_default: true } : {}),
            },
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('cert.caNameTaken', { name: body.name ?? ca.name });
        throw err;
      }
      return ctx.caDetailOf(await ctx.loadCa(actor, ca.id));
    },

    async caDelete(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CertCaTable[] = [];
      for (const id of ids) rows.push(await ctx.loadCa(actor, id));
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
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.ca.delete',
            target: row.name,
            objectId: row.id,
            details: { key_id: row.key_id },
          });
        }
      });
      for (const row of rows) crls.forget(row.id);
      return { deleted: rows.length };
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
  };
  return lifecycle;
}

/**
 * The domain's default CA (made on demand by `ensureDefaultCa`) as an issuer: its row, its
 * certificate and the chain above it; refused unless it is active.
 */
export function createDefaultIssuer(
  ctx: CertContext,
  ensureDefaultCa: (domainId: string) => Promise<CertCaTable | undefined>,
) {
  return async (domainId: string) => {
    const ca = await ensureDefaultCa(domainId);
    if (!ca || ctx.caState(ca) !== 'active') throw stateForbids('cert.noDefaultCa');
    const caCert = ctx.checkIssuing(ca);
    return { ca, caCert, chain: async () => [caCert, ...(await ctx.chainAbove(ca))] };
  };
}

export type DefaultIssuer = ReturnType<typeof createDefaultIssuer>;
