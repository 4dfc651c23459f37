import { z } from 'zod';
import { IMPORT_FORMATS, USAGE_BITS_TEXT } from '../algorithms.js';
import { defineCall } from '../call.js';
import { Id } from '../common.js';
import { BASE64_PATTERN } from '../rules/text.js';
import { Base64, Flags, KMS_TOKENS, KeyName, UsageMask, withKmip } from './key-fields.js';
import { Algorithm, KeyRow } from './key-rows.js';

/** Keys in and out: importing material or a public key, exporting wrapped material. */
export const keyTransferCalls = {
  import: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/import',
    summary:
      'Import a key: secret material (a private key or a symmetric key, with its public half derived and linked as for a generated pair) or a public key alone, which only verifies, encrypts and encapsulates',
    tag: 'key',
    access: 'key:write',
    tokens: withKmip(KMS_TOKENS),
    changesAccess: false,
    body: z
      .object({
        name: KeyName,
        algorithm: Algorithm,
        usage_mask: UsageMask.describe(
          `KMIP 2.x usage mask, as for key/create. A public key (format spki, public, or a PEM PUBLIC KEY) takes only the bits a public key can honour: verify, encrypt, wrap, key-agreement (encapsulate)\n${USAGE_BITS_TEXT}`,
        ),
        format: z
          .enum(IMPORT_FORMATS)
          .optional()
          .describe(
            [
              'How `content` is encoded. Without it: `raw` for AES, SM4 and HMAC, `pkcs8` for RSA, EC and Ed25519, `sm2-scalar` for SM2 (post-quantum keys always name it).',
              '- `raw`: the secret key bytes (AES, SM4: the key size; HMAC: 16 to 128 bytes)',
              '- `pkcs8`: PKCS#8 DER private key (RSA, EC, Ed25519)',
              '- `sm2-scalar`: the 32-byte SM2 private scalar d (GM/T 0009)',
              '- `spki`: SubjectPublicKeyInfo DER public key (RSA, EC P-256/384/521, secp256k1, Ed25519, SM2): makes a public key',
              '- `pem`: PEM text as is (not Base64): a `PUBLIC KEY` block is read as `spki`, a `PRIVATE KEY` block as `pkcs8`',
              '- `seed`: the key-generation seed (ML-KEM d‖z, 64 bytes; ML-DSA ξ, 32 bytes; SLH-DSA SK.seed‖SK.prf‖PK.seed, 3n bytes): the private key, its public half derived',
              '- `expanded`: the standard private-key encoding (FIPS 203 decapsulation key, FIPS 204 private key, FIPS 205 SK), what key/export answers as `standard`',
              '- `public`: the standard public-key encoding (FIPS 203 encapsulation key, FIPS 204 public key, FIPS 205 PK): makes a public key',
            ].join('\n'),
          ),
        content: z
          .string()
          .trim()
          .min(4)
          .max(65536)
          .describe('The key in `format`: Base64 of the bytes, or for `pem` the PEM text itself'),
        public_key: Base64.optional().describe(
          'Post-quantum private keys (`seed`, `expanded`): the public key (standard encoding, Base64) the caller expects; the import is refused when the derived public key differs',
        ),
        state: z.enum(['active', 'pre-active']).default('active'),
        ...Flags,
      })
      .superRefine((body, ctx) => {
        if (body.format !== 'pem' && !BASE64_PATTERN.test(body.content))
          ctx.addIssue({ code: 'custom', path: ['content'], message: 'must be Base64' });
      }),
    data: KeyRow,
  }),
  export: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/export',
    summary:
      'Export an exportable key wrapped by the given public key (Base64 SPKI DER, RSA or SM2): raw material never leaves in clear. Public keys export as SPKI',
    tag: 'key',
    access: 'key:export',
    tokens: withKmip(KMS_TOKENS),
    changesAccess: false,
    body: z.object({
      id: Id,
      version: z.number().int().min(1).optional(),
      wrap_public_key: Base64.optional(),
    }),
    data: z.object({
      key_id: z.string(),
      version: z.number().int(),
      algorithm: Algorithm,
      format: z.enum(['raw', 'pkcs8', 'sm2-scalar', 'standard', 'spki']),
      wrapping: z.enum(['none', 'RSA-OAEP-SHA256', 'SM2', 'RSA-OAEP-SHA256+AES-KWP', 'SM2+AES-KWP']),
      /** The wrapped material, or the key itself for wrapping 'none' (public keys). */
      material: z.string(),
      /** For hybrid wrapping: the AES-256 key-encryption key, wrapped by the public key. */
      wrapped_kek: z.string().nullable(),
    }),
  }),
};
