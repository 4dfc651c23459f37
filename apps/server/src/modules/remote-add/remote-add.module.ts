import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { api } from '@ksp/contracts';
import type { KspModule } from '../../platform/module.js';
import { registerCall } from '../../platform/http/route.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The CA an agent checks the server against: the last certificate of the TLS chain file (the
 * issuing CA, or the certificate itself when the file holds one), as its SHA-256 fingerprint.
 */
export function tlsCaOf(chainPem: string): { fingerprint: string; subject: string } | null {
  const blocks = chainPem.match(PEM_BLOCK);
  const last = blocks?.at(-1);
  if (!last) return null;
  const cert = new X509Certificate(last);
  return { fingerprint: cert.fingerprint256, subject: cert.subject.replaceAll('\n', ', ') };
}

/** The public `/remote-add` page's server half: the TLS CA fingerprint (README.md). */
export const remoteAddModule: KspModule = {
  name: 'remote-add',
  register(ctx) {
    // Read once at start: the certificate the server listens with does not change while it runs.
    const ca = ctx.config.tls ? tlsCaOf(readFileSync(ctx.config.tls.cert, 'utf8')) : null;
    registerCall(ctx.app, ctx.gate, api.remoteAdd.info, () =>
      Promise.resolve({
        tls: ctx.config.tls !== null,
        ca_fingerprint_sha256: ca?.fingerprint ?? null,
        ca_subject: ca?.subject ?? null,
      }),
    );
  },
};
