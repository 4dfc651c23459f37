import { z } from 'zod';
import { defineCall } from '../call.js';

/**
 * The public `/remote-add` page (docs/console.md#routes): it shows an operator the command that enrols
 * an agent with a registration token. The token never reaches the server from that page: it
 * comes in the URL fragment (from the registration tokens page) or is pasted.
 */
export const remoteAddCalls = {
  info: defineCall({
    method: 'GET',
    path: '/v1/ksp/remote-add/info',
    summary:
      "What the enrolment command needs besides the token: the SHA-256 fingerprint of the server's TLS CA (public: any TLS client sees it)",
    tag: 'client',
    access: 'public',
    beforeInit: true,
    data: z.object({
      tls: z.boolean().describe('the server listens with TLS (KSP_TLS_CERT)'),
      ca_fingerprint_sha256: z
        .string()
        .nullable()
        .describe(
          'SHA-256 of the DER of the last certificate of the TLS chain file (its CA, or the certificate itself when self-signed), colon-separated hex; null without TLS',
        ),
      ca_subject: z.string().nullable().describe('subject of that certificate; null without TLS'),
    }),
  }),
};
