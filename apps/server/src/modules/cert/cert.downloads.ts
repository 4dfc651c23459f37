import type { api, CaAlgorithm, Input, QueryInput } from '@ksp/contracts';
import { invalid, KspError, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { CertContext } from './cert.context.js';
import type { Crls } from './cert.crl.js';
import { file, pemChain, safeFileName, unb64 } from './cert.input.js';
import * as store from './cert.store.js';
import * as pki from './cert.pki.js';

/** A certificate and the chain above it as the download `kind` asks: PEM, DER, PEM chain or `.p7b`. */
async function certificateFile(
  kind: 'cert-pem' | 'cert-der' | 'chain-pem' | 'chain-p7b',
  base: string,
  der: Buffer,
  chain: () => Promise<Buffer[]>,
) {
  switch (kind) {
    case 'cert-pem':
      return file(`${base}.pem`, 'application/x-pem-file', pki.toPem(der, 'CERTIFICATE'));
    case 'cert-der':
      return file(`${base}.cer`, 'application/pkix-cert', der);
    case 'chain-pem':
      return file(
        `${base}-chain.pem`,
        'application/x-pem-file',
        pemChain([der, ...(await chain())]).join(''),
      );
    case 'chain-p7b':
      return file(`${base}.p7b`, 'application/pkcs7-mime', pki.buildCertsOnlyP7b([der, ...(await chain())]));
  }
}

const csrFile = (base: string, csrDer: string) =>
  file(`${base}.csr`, 'application/pkcs10', pki.toPem(unb64(csrDer), 'CERTIFICATE REQUEST'));

/** Downloads of CAs and certificates, and of a generated key pair's private half (encrypted). */
export function createDownloads(ctx: CertContext, crls: Crls) {
  const { db, deps } = ctx;

  return {
    async caDownload(actor: Actor, query: QueryInput<typeof api.cert.caDownload>) {
      const ca = await ctx.loadCa(actor, query.id);
      const base = safeFileName(ca.name);
      if (query.kind === 'csr') {
        if (!ca.csr_der) throw stateForbids('cert.noCsr');
        return csrFile(base, ca.csr_der);
      }
      if (!ca.cert_der)
        throw stateForbids(query.kind.startsWith('crl') ? 'cert.noCrl' : 'cert.caPending', { name: ca.name });
      if (query.kind === 'crl-pem' || query.kind === 'crl-der') {
        const crl = await crls.currentCrl(ca);
        return query.kind === 'crl-der'
          ? file(`${base}.crl`, 'application/pkix-crl', crl.der)
          : file(`${base}-crl.pem`, 'application/x-pem-file', pki.toPem(crl.der, 'X509 CRL'));
      }
      return certificateFile(query.kind, base, unb64(ca.cert_der), () => ctx.chainAbove(ca));
    },

    async download(actor: Actor, body: QueryInput<typeof api.cert.download>) {
      const cert = await ctx.loadCert(actor, body.id);
      const base = safeFileName(cert.name);
      const ca = await store.findCaAnyDomain(db, cert.ca_id);
      const chain = await ctx.chainFrom(ca);
      if (body.kind !== 'csr')
        return certificateFile(body.kind, base, unb64(cert.cert_der), () => Promise.resolve(chain));
      if (!cert.csr_der) throw stateForbids('cert.noCsr');
      return csrFile(base, cert.csr_der);
    },

    async downloadKey(actor: Actor, meta: RequestMeta, body: Input<typeof api.cert.downloadKey>) {
      const cert = await ctx.loadCert(actor, body.id);
      const base = safeFileName(cert.name);
      const der = unb64(cert.cert_der);
      const chain = await ctx.chainFrom(await store.findCaAnyDomain(db, cert.ca_id));
      if (!cert.key_id) throw stateForbids('cert.noPrivateKey');
      const algorithm = cert.algorithm as CaAlgorithm;
      if (body.kind === 'key-pkcs12' && !pki.PKCS12_ALGORITHMS.includes(algorithm))
        throw invalid('cert.pkcs12Unsupported', { algorithm });
      const record = { action: 'cert.download-key', target: cert.name, objectId: cert.id };
      let material: Buffer;
      try {
        material = await deps.vault().exportableMaterial(actor.domainId, cert.key_id, cert.name);
      } catch (err) {
        // The record names the refusal's reason alone (not its parameters), and any failure.
        await deps.audit.byCaller(db, actor, meta, {
          ...record,
          result: 'failure',
          details: { reason: err instanceof KspError ? err.messageKey : 'error' },
        });
        throw err;
      }
      try {
        const publicKey = pki.certificateSpki(der);
        const out =
          body.kind === 'key-pkcs8'
            ? file(
                `${base}.key.pem`,
                'application/x-pem-file',
                pki.encryptPkcs8(algorithm, material, publicKey, body.password),
              )
            : file(
                `${base}.p12`,
                'application/x-pkcs12',
                await pki.buildPkcs12({
                  algorithm,
                  material,
                  storedPublicKey: publicKey,
                  certDer: der,
                  chainDers: chain,
                  password: body.password,
                  friendlyName: cert.name,
                }),
              );
        await deps.audit.byCaller(db, actor, meta, { ...record, details: { format: body.kind } });
        return out;
      } finally {
        material.fill(0);
      }
    },
  };
}
