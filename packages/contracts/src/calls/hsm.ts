import { z } from 'zod';
import { defineCall } from '../call.js';

/**
 * The HSM root of trust (docs/modules.md#hsm-root-of-trust): a non-extractable AES-256 key on a PKCS#11 token
 * wraps the root key instead of the local seal file. Fields of docs/modules.md#hsm-root-of-trust: device unique id
 * (`slot_serial`), name (`token_label`), HSM certificate, the client's certificate and private
 * key, the certificate assigned to the server.
 */
export const HSM_DEFAULT_KEY_LABEL = 'ksp-root-of-trust';

const Pem = z.string().trim().max(65_536);
const TokenText = z.string().trim().max(64);

export const HsmTarget = z.object({
  library: z
    .string()
    .trim()
    .min(1)
    .max(1024)
    .describe("absolute path of the HSM vendor's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so"),
  slot_serial: TokenText.optional().describe(
    'device unique id: the token serial number (preferred way to pick the token)',
  ),
  token_label: TokenText.optional().describe(
    'name: the token label (used when no serial is given; neither: the first initialized token)',
  ),
  pin: z
    .string()
    .min(1)
    .max(256)
    .describe('the user PIN (partition password); stored sealed, never answered or logged'),
  key_label: TokenText.min(1)
    .optional()
    .describe(`label of the wrapping key on the token (default ${HSM_DEFAULT_KEY_LABEL}); made when missing`),
});
export type HsmTarget = z.infer<typeof HsmTarget>;

export const HsmCertificates = z.object({
  hsm_certificate: Pem.optional().describe('HSM certificate: the HSM server certificate (PEM); empty clears'),
  client_certificate: Pem.optional().describe('certificate assigned to the client (PEM); empty clears'),
  client_private_key: Pem.optional().describe(
    "the client certificate's private key (PEM, unencrypted PKCS#8, PKCS#1 or SEC1); stored sealed under the keyring, never answered; empty clears",
  ),
  server_certificate: Pem.optional().describe(
    'certificate assigned to the server, to be registered on the HSM side (PEM); empty clears',
  ),
});
export type HsmCertificates = z.infer<typeof HsmCertificates>;

export const HsmStatus = z.object({
  root_provider: z
    .enum(['seal-file', 'pkcs11'])
    .describe('what wraps the root key now: the local seal file or the HSM'),
  bound: z.boolean(),
  configured: z.boolean().describe('HSM settings are stored (kept after unbinding)'),
  seal_file: z.string().nullable().describe('path of the seal file while it is the root of trust'),
  library: z.string().nullable(),
  slot_serial: z.string().nullable().describe('device unique id (token serial)'),
  token_label: z.string().nullable().describe('name (token label)'),
  key_label: z.string().nullable(),
  bound_at: z.string().nullable(),
  hsm_certificate: z.string().nullable(),
  client_certificate: z.string().nullable(),
  client_private_key_set: z.boolean().describe('a client private key is stored (it is never answered)'),
  server_certificate: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type HsmStatus = z.infer<typeof HsmStatus>;

export const HsmTestResult = z.object({
  ok: z.literal(true),
  slot_serial: z.string(),
  token_label: z.string(),
  manufacturer: z.string(),
  model: z.string(),
  key_label: z.string(),
  key_sensitive: z.boolean().describe('what the token answers for CKA_SENSITIVE of the wrapping key'),
  key_extractable: z.boolean().describe('what the token answers for CKA_EXTRACTABLE of the wrapping key'),
  key_created: z.boolean().describe('true when this call made the wrapping key on the token'),
});
export type HsmTestResult = z.infer<typeof HsmTestResult>;

export const hsmCalls = {
  status: defineCall({
    method: 'GET',
    path: '/v1/ksp/hsm/status',
    summary: 'The root of trust in use and the HSM settings (never the PIN or the client private key)',
    tag: 'hsm',
    access: 'hsm:read',
    scope: 'system',
    data: HsmStatus,
  }),
  bind: defineCall({
    method: 'POST',
    path: '/v1/ksp/hsm/bind',
    summary:
      'Bind the root key to an HSM: find or make the non-extractable AES-256 key on the token, wrap the root key with it, check the wrapping opens, then retire the seal file',
    tag: 'hsm',
    access: 'hsm:write',
    scope: 'system',
    changesAccess: false,
    body: HsmTarget,
    data: HsmStatus,
  }),
  unbind: defineCall({
    method: 'POST',
    path: '/v1/ksp/hsm/unbind',
    summary:
      'Go back to a seal file: write a new seal file, check it opens the root key, then stop using the HSM (its key stays on the token)',
    tag: 'hsm',
    access: 'hsm:write',
    scope: 'system',
    changesAccess: false,
    body: z.object({}).optional(),
    data: HsmStatus,
  }),
  test: defineCall({
    method: 'POST',
    path: '/v1/ksp/hsm/test',
    summary:
      'Wrap/unwrap round trip on the token: with `library` (and `pin`), on those settings (the key is made when missing); without, on the stored ones',
    tag: 'hsm',
    access: 'hsm:write',
    scope: 'system',
    changesAccess: false,
    body: HsmTarget.partial().optional(),
    data: HsmTestResult,
  }),
  certificates: defineCall({
    method: 'POST',
    path: '/v1/ksp/hsm/certificates',
    summary:
      'Set the HSM certificate, the client certificate and private key, and the server certificate (omitted fields keep their value, empty clears)',
    tag: 'hsm',
    access: 'hsm:write',
    scope: 'system',
    changesAccess: false,
    body: HsmCertificates,
    data: HsmStatus,
  }),
};
