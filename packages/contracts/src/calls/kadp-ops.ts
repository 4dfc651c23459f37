import { z } from 'zod';
import { defineCall, type TokenKind } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';

/**
 * KADP client operations (docs/modules.md#kadp): a KADP client uses the crypto API with its client
 * identity — the signed-request scheme of its heartbeats (`signedText`, modules/client), not an
 * app token — and each operation is counted and listed on its detail page.
 */
export const kadpOperations = ['encrypt', 'decrypt'] as const;
export type KadpOperation = (typeof kadpOperations)[number];

/** What a KADP client signs as the payload of `kadp/crypto` (JSON text). */
export const KadpCryptoPayload = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('encrypt'),
    key_id: Id,
    plaintext: z.string().min(1).max(1_398_104).describe('Base64 of the data'),
    aad: z.string().max(8192).optional().describe('Base64 of additional authenticated data'),
  }),
  z.object({
    op: z.literal('decrypt'),
    key_id: Id,
    ciphertext: z.string().min(1).max(1_400_000).describe('what encrypt answered'),
    aad: z.string().max(8192).optional(),
  }),
]);
export type KadpCryptoPayload = z.infer<typeof KadpCryptoPayload>;

export const KadpOperationRow = z.object({
  id: z.string(),
  at: z.string().describe('ISO 8601 UTC'),
  operation: z.enum(kadpOperations),
  key_id: z.string(),
  key_name: z.string().describe("the key's name then; '-' when the id named no key of the domain"),
  result: z.enum(['success', 'failure']),
  reason: z.string().describe("the refusal's message key; empty on success"),
});
export type KadpOperationRow = z.infer<typeof KadpOperationRow>;

const CLIENT_TOKENS: readonly TokenKind[] = ['session', 'kadp'];

export const kadpOpsCalls = {
  crypto: defineCall({
    method: 'POST',
    path: '/v1/ksp/kadp/crypto',
    summary:
      'A KADP client encrypts or decrypts with a key of its domain, authenticated by its client certificate key (signed request, like its heartbeat)',
    tag: 'client',
    access: 'public',
    changesAccess: false,
    body: z.object({
      client_id: z.string().trim().min(1).max(64),
      timestamp: z.number().int().describe('ms since the epoch; must be newer than the last accepted call'),
      payload: z.string().min(2).max(2_900_000).describe('the JSON text of KadpCryptoPayload, as signed'),
      signature: z
        .string()
        .min(1)
        .max(2048)
        .describe('Base64 signature of signedText(client_id, timestamp, sha256(payload))'),
    }),
    data: z.object({
      key_id: z.string(),
      version: z.number().int().optional(),
      ciphertext: z.string().optional().describe('encrypt'),
      plaintext: z.string().optional().describe('decrypt: Base64'),
    }),
  }),
  operations: defineCall({
    method: 'GET',
    path: '/v1/ksp/kadp/client/operations',
    summary: "A KADP client's recent operations (newest first) and their count",
    tag: 'client',
    access: 'kadp:read',
    tokens: CLIENT_TOKENS,
    query: PageQuery.extend({ id: Id }),
    data: pageOf(KadpOperationRow),
  }),
};
