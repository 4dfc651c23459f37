import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { CertService } from './cert.service.js';

export function certRoutes(app: FastifyInstance, gate: Gatekeeper, certs: CertService): void {
  registerCall(app, gate, api.cert.caList, ({ actor, query }) => certs.caList(actor, query));
  registerCall(app, gate, api.cert.caDetail, ({ actor, query }) => certs.caDetail(actor, query.id));
  registerCall(app, gate, api.cert.caCreate, ({ actor, meta, body }) => certs.caCreate(actor, meta, body));
  registerCall(app, gate, api.cert.caSelfSign, ({ actor, meta, body }) =>
    certs.caSelfSign(actor, meta, body),
  );
  registerCall(app, gate, api.cert.caSign, ({ actor, meta, body }) => certs.caSign(actor, meta, body));
  registerCall(app, gate, api.cert.caInstall, ({ actor, meta, body }) => certs.caInstall(actor, meta, body));
  registerCall(app, gate, api.cert.caUpdate, ({ actor, meta, body }) => certs.caUpdate(actor, meta, body));
  registerCall(app, gate, api.cert.caDelete, ({ actor, meta, body }) =>
    certs.caDelete(actor, meta, body.ids),
  );
  registerCall(app, gate, api.cert.caDownload, ({ actor, query }) => certs.caDownload(actor, query));
  registerCall(app, gate, api.cert.list, ({ actor, query }) => certs.list(actor, query));
  registerCall(app, gate, api.cert.detail, ({ actor, query }) => certs.detail(actor, query.id));
  registerCall(app, gate, api.cert.summary, ({ actor }) => certs.summary(actor));
  registerCall(app, gate, api.cert.issue, ({ actor, meta, body }) => certs.issue(actor, meta, body));
  registerCall(app, gate, api.cert.revoke, ({ actor, meta, body }) => certs.revoke(actor, meta, body));
  registerCall(app, gate, api.cert.resume, ({ actor, meta, body }) => certs.resume(actor, meta, body.id));
  registerCall(app, gate, api.cert.delete, ({ actor, meta, body }) => certs.remove(actor, meta, body.ids));
  registerCall(app, gate, api.cert.download, ({ actor, query }) => certs.download(actor, query));
  registerCall(app, gate, api.cert.downloadKey, ({ actor, meta, body }) =>
    certs.downloadKey(actor, meta, body),
  );
  registerCall(app, gate, api.cert.externalList, ({ actor, query }) => certs.externalList(actor, query));
  registerCall(app, gate, api.cert.externalDetail, ({ actor, query }) =>
    certs.externalDetail(actor, query.id),
  );
  registerCall(app, gate, api.cert.externalUpload, ({ actor, meta, body }) =>
    certs.externalUpload(actor, meta, body),
  );
  registerCall(app, gate, api.cert.externalDelete, ({ actor, meta, body }) =>
    certs.externalDelete(actor, meta, body.ids),
  );
  registerCall(app, gate, api.cert.ukeyIssue, ({ actor, meta, body }) => certs.ukeyIssue(actor, meta, body));
  registerCall(app, gate, api.cert.sign, ({ meta, body }) => certs.signOnline(meta, body));
  pkiDistributionRoutes(app, certs);
}

/** At most this many bytes of OCSP request (RFC 6960 requests are a few hundred bytes). */
const OCSP_REQUEST_LIMIT = 64 * 1024;
const CaParam = z.object({ ca: z.uuid() });

/**
 * The public PKI distribution points named in issued certificates: a CA's CRL (DER, as
 * RFC 5280 §4.2.1.13 HTTP distribution points serve it) and its OCSP responder (RFC 6960
 * GET and POST). They answer the PKI's own formats, not the API's envelope.
 */
function pkiDistributionRoutes(app: FastifyInstance, certs: CertService): void {
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      'application/ocsp-request',
      { parseAs: 'buffer', bodyLimit: OCSP_REQUEST_LIMIT },
      (_req, body, done) => done(null, body),
    );
    const CRL_MAX_AGE_S = 300;
    const notFound = (reply: FastifyReply) => reply.status(404).type('text/plain').send('No such CA\n');

    scope.get<{ Params: { file: string } }>(
      '/pki/crl/:file',
      {
        config: { access: 'public' },
        schema: {
          summary: "A local CA's current CRL (DER), as named in its certificates' CRL distribution point",
          description:
            'Public, no token. `:file` is `<ca id>.crl`. Answers `application/pkix-crl` (DER), ' +
            "cacheable for at most 5 minutes and never past the CRL's nextUpdate, with an `ETag`: " +
            'a request with a matching `If-None-Match` answers 304 without a body. 404 (text) for an ' +
            'unknown or pending CA, 503 when the CRL is due and cannot be rebuilt.',
          tags: ['pki'],
          params: z.object({ file: z.string().regex(/^[0-9a-f-]{36}\.crl$/) }),
        },
      },
      async (req, reply) => {
        let crl: Awaited<ReturnType<typeof certs.publicCrl>>;
        try {
          crl = await certs.publicCrl(req.params.file.slice(0, 36));
        } catch {
          // Due for rebuilding and the CA's key is not in use: nothing valid to serve.
          return reply.status(503).type('text/plain').header('retry-after', '300').send('CRL unavailable\n');
        }
        if (!crl) return notFound(reply);
        // Relying parties keep the CRL and ask again with its ETag: unchanged answers 304, no body.
        const maxAge = Math.max(0, Math.min(CRL_MAX_AGE_S, Math.floor((crl.nextUpdate - Date.now()) / 1000)));
        reply
          .header('etag', crl.etag)
          .header('cache-control', `public, max-age=${maxAge}`)
          .header('expires', new Date(crl.nextUpdate).toUTCString());
        const asked = req.headers['if-none-match'];
        if (asked && asked.split(',').some((tag) => tag.trim().replace(/^W\//, '') === crl.etag))
          return reply.status(304).send();
        return reply.type('application/pkix-crl').send(crl.der);
      },
    );

    const answerOcsp = async (reply: FastifyReply, caId: string, request: Buffer) =>
      reply
        .type('application/ocsp-response')
        .header('cache-control', 'no-store')
        .send(await certs.ocsp(caId, request));

    scope.post<{ Params: { ca: string }; Body: Buffer }>(
      '/pki/ocsp/:ca',
      {
        config: { access: 'public' },
        schema: {
          summary: 'OCSP responder of a local CA (RFC 6960, POST)',
          description:
            'Public, no token. Body: a DER OCSPRequest, content type `application/ocsp-request` ' +
            '(at most 64 KiB). Answers a DER OCSPResponse (`application/ocsp-response`) signed by ' +
            'the CA: good, revoked (time and reason) or unknown for each request; the request nonce ' +
            'is echoed. A malformed request answers the OCSP status malformedRequest; an unknown CA, unauthorized.',
          tags: ['pki'],
          params: CaParam,
        },
      },
      async (req, reply) =>
        answerOcsp(reply, req.params.ca, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)),
    );

    scope.get<{ Params: { ca: string; '*': string } }>(
      '/pki/ocsp/:ca/*',
      {
        config: { access: 'public' },
        schema: {
          summary: 'OCSP responder of a local CA (RFC 6960 appendix A, GET)',
          description:
            'Public, no token. The path after the CA id is the URL-encoded Base64 of a DER ' +
            'OCSPRequest. Answers as the POST form does.',
          tags: ['pki'],
        },
      },
      async (req, reply) => {
        let request: Buffer;
        try {
          request = Buffer.from(decodeURIComponent(req.params['*'] ?? ''), 'base64');
        } catch {
          request = Buffer.alloc(0); // not URL-encoded: answered as a malformed request
        }
        return answerOcsp(reply, req.params.ca, request);
      },
    );
    done();
  });
}
