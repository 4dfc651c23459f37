import type { api, Input, QueryInput } from '@ksp/contracts';
import type { CertExternalTable } from '../../platform/db/schema.js';
import { invalid, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { CertContext } from './cert.context.js';
import { b64, checked, fingerprintOf, iso, newId, unb64 } from './cert.input.js';
import * as store from './cert.external.store.js';
import * as pki from './cert.pki.js';

/**
 * External certificates of a domain: CA certificates it keeps as trust anchors (kind `ca`), and
 * end-entity certificates it only keeps (kind `certificate`: a KMIP client's own certificate, say),
 * which are never trusted as issuers.
 */
export function createExternalCas(ctx: CertContext) {
  const { db, deps, now } = ctx;

  function externalView(row: CertExternalTable) {
    const at = now().getTime();
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
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

  return {
    async externalList(actor: Actor, query: QueryInput<typeof api.cert.externalList>) {
      const { rows, total } = await store.listExternal(
        db,
        actor.domainId,
        { name: query.name, kind: query.kind },
        query,
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
      // Every certificate of an upload is of the kind asked: CA certificates (trust anchors, one
      // chain) unless end-entity certificates are asked for, which are only kept.
      const kind = body.kind ?? 'ca';
      for (const { info } of described) {
        if (kind === 'ca' && !info.is_ca) throw invalid('cert.notCaCertificate', { subject: info.subject });
        if (kind === 'certificate' && info.is_ca)
          throw invalid('cert.notLeafCertificate', { subject: info.subject });
      }
      if (kind === 'ca' && certs.length > 1) checked('content', () => pki.orderChain(certs));
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
            self_signed: info.subject === info.issuer && ctx.safeVerify(der, spki) ? 1 : 0,
            cert_der: b64(der),
            created_at: iso(now()),
            kind,
          };
          await store.insertExternal(trx, row);
          added.push(row);
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.external.upload',
            target: row.name,
            objectId: row.id,
            details: { fingerprint, kind },
          });
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
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.external.delete',
            target: row.name,
            objectId: row.id,
          });
        return { deleted };
      });
    },

    /**
     * Trust anchors of a domain: its external CA certificates, never its end-entity ones (client
     * certificates of later areas are checked against them).
     */
    async trustAnchors(domainId: string): Promise<Buffer[]> {
      return (await store.externalCaCertificates(db, domainId)).map((row) => unb64(row.cert_der));
    },

    /**
     * The external CA of `domainId` that issued `der`: a trust anchor named as its issuer, a CA
     * certificate valid now, whose key verifies its signature. Null when none did; an end-entity
     * certificate the domain keeps never issues, even when its key signed `der`.
     */
    async externalIssuerOf(domainId: string, der: Buffer): Promise<{ id: string; name: string } | null> {
      let issuer: string;
      try {
        issuer = pki.describeCertificate(der).issuer;
      } catch {
        return null;
      }
      const at = now().getTime();
      for (const row of await store.externalCaCertificates(db, domainId)) {
        const anchor = unb64(row.cert_der);
        const info = pki.describeCertificate(anchor);
        if (!info.is_ca || info.subject !== issuer) continue;
        if (Date.parse(info.not_before) > at || Date.parse(info.not_after) <= at) continue;
        if (ctx.safeVerify(der, pki.certificateSpki(anchor))) return { id: row.id, name: row.name };
      }
      return null;
    },
  };
}
