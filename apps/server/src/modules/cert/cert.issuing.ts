import { EXPIRING_DAYS, type api, type CaAlgorithm, type Input, type QueryInput } from '@ksp/contracts';
import { callerEntry } from '../../platform/audit.js';
import type { CertCertificateTable } from '../../platform/db/schema.js';
import { invalid, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { CertContext } from './cert.context.js';
import type { Crls } from './cert.crl.js';
import { DAY_MS, iso, mergeSan, nameOf, newId, sanOf, wholeSeconds } from './cert.input.js';
import { checkIntermediate, signCertificate } from './cert.signing.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';

/**
 * Certificates a local CA issues in the console (docs/modules.md#certificates): the list and
 * figures, issuing from a CSR or with a key pair made in the key store, revocation (hold and
 * resume) and deletion.
 */
export function createIssuing(ctx: CertContext, crls: Crls) {
  const { db, deps, now } = ctx;

  /** The CRL of the certificate's CA follows a revocation change. */
  async function revocationChanged(cert: CertCertificateTable) {
    const ca = await store.findCaAnyDomain(db, cert.ca_id);
    if (ca) await crls.revocationChanged(ca);
  }

  /** Figures of one domain (or of all, `null`): valid, expiring within `days`, revoked, expired. */
  async function figures(domainId: string | null, days: number) {
    const at = now();
    return store.certificateFigures(db, domainId, iso(at), iso(new Date(at.getTime() + days * DAY_MS)));
  }

  return {
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
        query,
      );
      const names = await store.caNames(db, [...new Set(rows.map((r) => r.ca_id))]);
      return { data: rows.map((r) => ctx.certView(r, names.get(r.ca_id) ?? null)), total };
    },

    detail: async (actor: Actor, id: string) => ctx.certDetailOf(await ctx.loadCert(actor, id)),

    async summary(actor: Actor) {
      return {
        ...(await figures(actor.domainId, EXPIRING_DAYS)),
        cas: await store.countCas(db, actor.domainId),
      };
    },

    /**
     * Valid certificates and those of them ending within `days` (30 by default): of one
     * domain, or of all (`null`).
     */
    async expiringFigures(domainId: string | null, days: number = EXPIRING_DAYS) {
      const { valid, expiring } = await figures(domainId, days);
      return { valid, expiring };
    },

    async issue(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.issue>) {
      if (body.csr && body.key_algorithm) throw invalid('cert.csrAndKey');
      const ca = await ctx.loadCa(actor, body.ca_id);
      const caCert = ctx.checkIssuing(ca);
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
        csr = await ctx.readCsr(body.csr, { actor, ip: meta.ip, action: 'cert.issue' });
        if (body.purpose !== 'intermediate') ctx.checkUsage(csr.algorithm, body.usage);
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
        if (body.purpose !== 'intermediate') ctx.checkUsage(algorithm, body.usage);
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
      const issued = await signCertificate(ctx, actor.domainId, {
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
          deps.audit.row(
            callerEntry(actor, meta, {
              action: 'cert.issue',
              target: body.name,
              objectId: issued.id,
              details: {
                ca: ca.name,
                serial: issued.serial,
                purpose: body.purpose,
                ...(keyId ? { key_id: keyId } : {}),
              },
            }),
          ),
        ],
      });
      return ctx.certDetailOf(issued, ca);
    },

    async revoke(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.revoke>) {
      const cert = await ctx.loadCert(actor, body.id);
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
        await deps.audit.byCaller(trx, actor, meta, {
          action: 'cert.revoke',
          target: cert.name,
          objectId: cert.id,
          details: { serial: cert.serial, reason: body.reason },
        });
      });
      await revocationChanged(cert);
      return ctx.certDetailOf(await ctx.loadCert(actor, cert.id));
    },

    async resume(actor: Actor, meta: RequestMeta, id: string) {
      const cert = await ctx.loadCert(actor, id);
      if (cert.revocation_reason !== 'certificateHold')
        throw stateForbids('cert.notOnHold', { name: cert.name });
      await db.transaction().execute(async (trx) => {
        await store.updateCertificate(trx, cert.id, { revoked_at: null, revocation_reason: null });
        await deps.revocations?.()?.changed(trx, cert.id, false, iso(now()));
        await deps.audit.byCaller(trx, actor, meta, {
          action: 'cert.resume',
          target: cert.name,
          objectId: cert.id,
          details: { serial: cert.serial },
        });
      });
      await revocationChanged(cert);
      return ctx.certDetailOf(await ctx.loadCert(actor, cert.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CertCertificateTable[] = [];
      for (const id of ids) {
        const row = await ctx.loadCert(actor, id);
        const status = ctx.certStatus(row);
        if (status === 'normal' || status === 'hold')
          throw stateForbids('cert.deleteValid', { name: row.name });
        rows.push(row);
      }
      const at = iso(now());
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          await store.updateCertificate(trx, row.id, { deleted_at: at });
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.delete',
            target: row.name,
            objectId: row.id,
            details: { serial: row.serial },
          });
        }
      });
      return { deleted: rows.length };
    },
  };
}
