import { createHash } from 'node:crypto';
import { CRL_VALIDITY_HOURS } from '@ksp/contracts';
import type { CertCaTable } from '../../platform/db/schema.js';
import type { CertContext } from './cert.context.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';
import { b64, HOUR_MS, iso, unb64, wholeSeconds } from './cert.input.js';

/** A CRL is rebuilt once less than this share of its validity is left. */
const CRL_REFRESH_SHARE = 0.25;
/** How long a node serves its in-memory CRL before checking the database for a newer one. */
const CRL_RECHECK_MS = 5_000;

interface CachedCrl {
  der: Buffer;
  /** Strong validator for conditional fetches: a hash of the DER, made once per CRL. */
  etag: string;
  number: number;
  nextUpdate: number;
  checkedAt: number;
}

const crlEtag = (der: Buffer) => `"${createHash('sha256').update(der).digest('base64url').slice(0, 27)}"`;

function crlNeedsRebuild(row: { stale: number; this_update: string; next_update: string }, at: number) {
  const start = Date.parse(row.this_update);
  const end = Date.parse(row.next_update);
  return row.stale === 1 || at >= end - (end - start) * CRL_REFRESH_SHARE;
}

/**
 * CRLs (docs/modules.md#certificates): numbered, valid 24 hours, rebuilt when a quarter of
 * that is left or on any revocation change; each node keeps them in memory and checks the
 * database for a newer one every few seconds.
 */
export function createCrls(ctx: CertContext) {
  const { db, deps, now } = ctx;
  const crlCache = new Map<string, CachedCrl>();
  const crlBuilds = new Map<string, Promise<CachedCrl>>();

  async function buildCrlFor(ca: CertCaTable): Promise<CachedCrl> {
    const previous = await store.findCrl(db, ca.id);
    const thisUpdate = wholeSeconds(now());
    const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY_HOURS * HOUR_MS);
    const revoked = await store.revokedEntries(db, ca.id, iso(thisUpdate));
    const caCert = unb64(ca.cert_der ?? '');
    const issuer = ctx.caParts({ ...ca, cert_der: b64(caCert) });
    const number = (previous?.number ?? 0) + 1;
    const der = await pki.buildCrl({
      issuerName: issuer.subject,
      issuerSki: issuer.ski,
      signer: ctx.signerOf(ca),
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
    await deps.audit.write(db, {
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

  /** Builds the CA's CRL now; when its key cannot sign yet, logs why and leaves it to the job. */
  async function rebuildOrWarn(ca: CertCaTable, message: string) {
    try {
      await rebuildCrl(ca);
    } catch (err) {
      deps.log?.warn({ ca: ca.id, err: err instanceof Error ? err.message : String(err) }, message);
    }
  }

  return {
    currentCrl,
    /** A CA that became active publishes its first (empty) CRL at once. */
    published: (ca: CertCaTable) => rebuildOrWarn(ca, 'CRL not built'),

    /**
     * A revocation changed: the CRL is rebuilt now. When it cannot be (the CA's key is not in
     * use), the revocation stands, the CRL stays marked stale, and the refresh job and the next
     * fetch try again.
     */
    async revocationChanged(ca: CertCaTable) {
      await store.markCrlStale(db, ca.id);
      crlCache.delete(ca.id);
      await rebuildOrWarn(ca, 'CRL not rebuilt');
    },

    /** Forgets the CRL of a deleted CA. */
    forget: (caId: string) => void crlCache.delete(caId),

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
        if (!ca || ctx.caState(ca) !== 'active') continue;
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
}

export type Crls = ReturnType<typeof createCrls>;
