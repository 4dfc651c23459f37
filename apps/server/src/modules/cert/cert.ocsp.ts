import type { CertContext } from './cert.context.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';
import { HOUR_MS, unb64, wholeSeconds } from './cert.input.js';

/** How long an OCSP answer may be relied on. */
const OCSP_VALIDITY_MS = HOUR_MS;

/** The OCSP responder of the local CAs (RFC 6960): each CA signs the answers about what it issued. */
export function createOcspResponder(ctx: CertContext) {
  const { db } = ctx;

  /** One request's answer: unknown unless the CertID names this CA and the serial is one it issued. */
  async function statusOf(ca: { id: string }, caCert: Buffer, single: pki.OcspCertRequest, at: Date) {
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
    if (!found) return { ...base, status: 'unknown' as const };
    if (!found.revoked_at) return { ...base, status: 'good' as const };
    return {
      ...base,
      status: 'revoked' as const,
      revokedAt: new Date(found.revoked_at),
      ...(found.revocation_reason ? { reason: found.revocation_reason as pki.RevocationReason } : {}),
    };
  }

  return {
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
      const at = wholeSeconds(ctx.now());
      const responses = [];
      for (const single of request.requests) responses.push(await statusOf(ca, caCert, single, at));
      try {
        return await pki.buildOcspResponse({
          responderCertDer: caCert,
          signer: ctx.signerOf(ca),
          producedAt: at,
          ...(request.nonce ? { nonce: request.nonce } : {}),
          responses,
        });
      } catch {
        return pki.ocspErrorResponse('internalError');
      }
    },
  };
}
