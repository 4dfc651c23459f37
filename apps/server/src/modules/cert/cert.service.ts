import { createAgentCertificates } from './cert.agent.js';
import { createCaLifecycle, createDefaultIssuer } from './cert.ca.js';
import { createCertContext, type CertDeps } from './cert.context.js';
import { createCrls } from './cert.crl.js';
import { createDownloads } from './cert.downloads.js';
import { createExternalCas } from './cert.external.js';
import { createIssuing } from './cert.issuing.js';
import { createOcspResponder } from './cert.ocsp.js';
import { createOnlineIssuing } from './cert.online.js';
import { createUkeyIssuing } from './cert.ukey.js';

export type { ClientCertificateCheck, ClientCertificateIdentity } from './cert.agent.js';

/**
 * Certificates and PKI (docs/modules.md#certificates), one service made of its jobs. A local
 * CA's private key is a key object of the key store (`keyVault`): every signature the CA makes
 * (certificates, CRLs, OCSP answers) goes through it, and nothing here holds key material.
 * Every change writes its audit record in the same transaction; failed checks (a CSR whose
 * signature does not match, a certificate that is not the CA's key) are audited as failures.
 */
export function createCertService(deps: CertDeps) {
  const ctx = createCertContext(deps);
  const crls = createCrls(ctx);
  const cas = createCaLifecycle(ctx, crls);
  const defaultIssuer = createDefaultIssuer(ctx, (domainId) => cas.ensureDefaultCa(domainId));
  return {
    ...cas,
    ...createDownloads(ctx, crls),
    ...createIssuing(ctx, crls),
    ...createUkeyIssuing(ctx, defaultIssuer),
    ...createExternalCas(ctx),
    ...createAgentCertificates(ctx, defaultIssuer, crls),
    ...createOnlineIssuing(ctx, defaultIssuer),
    ...createOcspResponder(ctx),
    publicCrl: (caId: string) => crls.publicCrl(caId),
    refreshCrls: () => crls.refreshCrls(),
    close: () => crls.close(),
  };
}

export type CertService = ReturnType<typeof createCertService>;
