import type { api, Input } from '@ksp/contracts';
import { generateKey } from '../../platform/crypto/generate.js';
import type { CertCertificateTable } from '../../platform/db/schema.js';
import { invalid } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { DefaultIssuer } from './cert.ca.js';
import type { CertContext } from './cert.context.js';
import { b64, pemChain, unb64 } from './cert.input.js';
import { signCertificate } from './cert.signing.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';

/** UKEY certificates: a user's signing certificate (and, dual SM2, an encryption one). */
export function createUkeyIssuing(ctx: CertContext, defaultIssuer: DefaultIssuer) {
  const { db, deps } = ctx;

  return {
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
      const csr = await ctx.readCsr(body.csr, { actor, ip: meta.ip, action: 'cert.ukey.issue' });
      if (csr.algorithm !== body.algorithm)
        throw invalid('cert.ukeyAlgorithm', { found: csr.algorithm, algorithm: body.algorithm });
      const { ca, caCert, chain } = await defaultIssuer(actor.domainId);
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
      const signing = await signCertificate(ctx, actor.domainId, {
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
          encryption = await signCertificate(ctx, actor.domainId, {
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
          await deps.audit.byCaller(trx, actor, meta, {
            action: 'cert.ukey.issue',
            target: row.name,
            objectId: row.id,
            details: {
              user_id: body.user_id,
              ukey_type: body.ukey_type,
              serial: row.serial,
              spec: body.spec,
              usage: row.usage,
            },
          });
        }
      });
      return {
        signing: await ctx.certDetailOf(signing),
        encryption: encryption ? await ctx.certDetailOf(encryption) : null,
        enveloped_key: envelopedKey,
        chain_pem: pemChain(await chain()),
      };
    },
  };
}
