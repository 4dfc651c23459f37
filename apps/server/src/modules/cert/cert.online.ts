import type { api, CertUsage, Input } from '@ksp/contracts';
import { KspError } from '../../platform/errors.js';
import type { RequestMeta } from '../../platform/http/route.js';
import type { DefaultIssuer } from './cert.ca.js';
import type { CertContext } from './cert.context.js';
import { b64, pemChain, unb64 } from './cert.input.js';
import { signCertificate } from './cert.signing.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';

/**
 * Online issuing (`/sign-cert`): a CSR and a registration token, no session. The token names
 * the domain; the domain's default CA issues a client signing certificate.
 */
export function createOnlineIssuing(ctx: CertContext, defaultIssuer: DefaultIssuer) {
  const { db, deps } = ctx;

  return {
    async signOnline(meta: RequestMeta, body: Input<typeof api.cert.sign>) {
      const csr = await ctx.readCsr(body.csr, { actor: null, ip: meta.ip, action: 'cert.sign' });
      try {
        const token = await deps.tokens().lookup(body.token);
        const { ca, caCert, chain } = await defaultIssuer(token.domainId);
        const usage: CertUsage = 'signature';
        ctx.checkUsage(csr.algorithm, usage);
        const row = await signCertificate(ctx, token.domainId, {
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
          // The token acted, not a signed-in user.
          await deps.audit.write(trx, {
            who: { userId: null, username: `token:${spent.name}`, domainId: spent.domainId, domainName: '' },
            action: 'cert.sign',
            target: row.name,
            result: 'success',
            ip: meta.ip,
            objectId: row.id,
            details: { token: spent.name, ca: ca.name, serial: row.serial },
          });
          return spent.remaining;
        });
        const der = unb64(row.cert_der);
        const above = await chain();
        return {
          certificate_pem: pki.toPem(der, 'CERTIFICATE'),
          chain_pem: pemChain(above),
          p7b: b64(pki.buildCertsOnlyP7b([der, ...above])),
          serial: row.serial,
          not_after: row.not_after,
          remaining,
        };
      } catch (err) {
        await deps.audit.write(db, {
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
  };
}
