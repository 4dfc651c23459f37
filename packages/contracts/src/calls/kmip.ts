import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';
import { ClientCertificate } from './client.js';

/**
 * KMIP clients (docs/kmip.md): applications that speak KMIP to KSP's KMIP listener over mutual
 * TLS. Each is a client of type `kmip` in a domain, with a role whose permissions apply to every
 * KMIP operation exactly as to the REST call that does the same thing. It authenticates with a
 * client certificate from its domain's default CA, issued here from a CSR (the key never reaches
 * KSP) or by enrolment with a registration token of usage `kmip`.
 */
export const KMIP_CLIENT_STATES = ['active', 'disabled', 'revoked'] as const;
/** The keys KSP makes for a KMIP client created without a CSR. */
export const KMIP_CLIENT_KEY_ALGORITHMS = ['EC-P256', 'RSA-2048'] as const;

export const KmipClientRow = z.object({
  id: z.string(),
  name: z.string(),
  role_id: z
    .string()
    .nullable()
    .describe('the role whose permissions the client holds; null: none (every operation refused)'),
  role_name: z.string().describe("the role's name; empty when none"),
  state: z
    .enum(KMIP_CLIENT_STATES)
    .describe(
      'active: may connect; disabled: refused until enabled again; revoked: its certificate was revoked (for good)',
    ),
  last_seen_at: z.string().nullable().describe('the last KMIP request it made, ISO 8601 UTC; null: none yet'),
  registered_at: z.string().describe('creation or enrolment time, ISO 8601 UTC'),
  certificate: ClientCertificate,
});
export type KmipClientRow = z.infer<typeof KmipClientRow>;

const ClientName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.@-]*$/u);

const Csr = z
  .string()
  .trim()
  .min(1)
  .max(16_384)
  .describe(
    'PEM PKCS#10 certificate request (`-----BEGIN CERTIFICATE REQUEST-----`), signed by its key; the key never reaches KSP',
  );

/** What a client creation and a certificate renewal answer: the client and its certificate chain. */
const Issued = z.object({
  client: KmipClientRow,
  certificate_pem: z.string().describe('the client certificate, PEM'),
  chain_pem: z.string().describe('the issuing CA chain, PEM, leaf-side first'),
  pkcs12: z
    .string()
    .nullable()
    .describe(
      'created without a CSR: Base64 of the PKCS#12 file (the key KSP made, the certificate and the chain, sealed with pkcs12_password); answered once, never kept. null otherwise',
    ),
});

export const kmipCalls = {
  status: defineCall({
    method: 'GET',
    path: '/v1/ksp/kmip/status',
    summary:
      'The KMIP listener on this node: whether it listens, its port, the versions it speaks and the CA chain of its server certificate',
    tag: 'kmip',
    access: 'kmip:read',
    data: z.object({
      listening: z.boolean().describe('false: KSP_KMIP_PORT is not set, or no TLS certificate was given'),
      port: z.number().int().nullable(),
      versions: z.array(z.string()).describe('protocol versions, newest first ("2.0", "1.4" … "1.0")'),
      server_certificate_pem: z
        .string()
        .describe(
          "the listener's TLS certificate (clients verify it with its issuer); empty when not listening",
        ),
      limits: z.object({
        max_message_bytes: z.number().int(),
        idle_seconds: z.number().int(),
        connections_per_client: z.number().int(),
        connections_total: z.number().int(),
      }),
    }),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/kmip/client/list',
    summary: 'KMIP clients of the current domain',
    tag: 'kmip',
    access: 'kmip:read',
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional().describe('part of the name'),
    }),
    data: pageOf(KmipClientRow),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/kmip/client/create',
    summary:
      "Create a KMIP client with a role, and sign its CSR with the domain's default CA, or make its key and answer it once in a PKCS#12 file",
    tag: 'kmip',
    access: 'kmip:write',
    changesAccess: false,
    body: z
      .object({
        name: ClientName,
        role_id: Id.describe('a role of the current domain'),
        csr: Csr.optional(),
        key_algorithm: z
          .enum(KMIP_CLIENT_KEY_ALGORITHMS)
          .default('EC-P256')
          .describe('without a CSR: the key KSP makes for the client (EC-P256 or RSA-2048)'),
        pkcs12_password: z
          .string()
          .min(8)
          .max(128)
          .optional()
          .describe(
            'without a CSR: the password that seals the PKCS#12 file holding the key KSP makes and its certificate (8–128 characters; never stored)',
          ),
        validity_days: z
          .number()
          .int()
          .min(1)
          .max(3650)
          .default(365)
          .describe('certificate validity in days'),
      })
      .superRefine((body, ctx) => {
        if (!body.csr && !body.pkcs12_password)
          ctx.addIssue({
            code: 'custom',
            path: ['csr'],
            message: 'give a CSR, or a pkcs12_password for a key KSP makes',
          });
        if (body.csr && body.pkcs12_password)
          ctx.addIssue({
            code: 'custom',
            path: ['pkcs12_password'],
            message: 'with a CSR the key stays with the client: no PKCS#12 is made',
          });
      }),
    data: Issued,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/kmip/client/update',
    summary:
      "Change a KMIP client's role, or disable / enable it (a disabled client is refused at its next request)",
    tag: 'kmip',
    access: 'kmip:write',
    changesAccess: false,
    body: z.object({
      id: Id,
      role_id: Id.optional(),
      enabled: z.boolean().optional(),
    }),
    data: KmipClientRow,
  }),
  renew: defineCall({
    method: 'POST',
    path: '/v1/ksp/kmip/client/renew',
    summary:
      'Issue a KMIP client a new certificate (for a new CSR, or the same key without one); the old one is revoked (superseded)',
    tag: 'kmip',
    access: 'kmip:write',
    changesAccess: false,
    body: z.object({ id: Id, csr: Csr.optional() }),
    data: Issued,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/kmip/client/delete',
    summary: 'Delete a KMIP client; its certificate is revoked; the keys it made stay',
    tag: 'kmip',
    access: 'kmip:write',
    changesAccess: false,
    body: z.object({ id: Id }),
    data: z.object({ deleted: z.number().int() }),
  }),
};
