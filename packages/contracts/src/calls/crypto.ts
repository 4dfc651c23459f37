import { z } from 'zod';
import { ANY_TOKEN, APP_TOKEN, defineCall } from '../call.js';
import { Id } from '../common.js';
import { base64Text } from '../rules/text.js';
import { withKmip } from './key-fields.js';

/** Crypto payloads: an SLH-DSA-256f signature alone is 49,856 bytes. */
const Bytes = base64Text(262144);
const op = <T extends z.ZodRawShape>(shape: T) => z.object(shape);
const CheckVersion = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(
    'Check against this version only; without it, every version of the key that still has material is tried (newest first)',
  );
const MatchedVersion = z
  .number()
  .int()
  .nullable()
  .describe('The version that matched; null when none did (valid is false)');

/** How a signature is made and read; each field applies to its algorithms only (4000 for others). */
export const signatureFormats = ['der', 'p1363'] as const;
export const rsaPaddings = ['pss', 'pkcs1v15'] as const;
const SignatureOptions = {
  signature_format: z
    .enum(signatureFormats)
    .optional()
    .describe(
      'ECDSA (EC-P256, EC-P384, EC-P521, EC-SECP256K1) and SM2 only: `der` (default), the ASN.1 DER SEQUENCE { r, s } of X9.62 / GM/T 0009 (read strictly: BER, extra bytes or non-minimal integers are invalid); or `p1363`, IEEE P1363 r‖s, each integer big-endian in the curve order size (64 bytes for P-256, secp256k1 and SM2, 96 for P-384, 132 for P-521; any other length is invalid)',
    ),
  rsa_padding: z
    .enum(rsaPaddings)
    .optional()
    .describe(
      'RSA only: `pss` (default), RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (the digest length) when signing; verify accepts any salt length (it is recovered from the signature, as OpenSSL rsa_pss_saltlen:auto). Or `pkcs1v15`, RSASSA-PKCS1-v1_5 with SHA-256 (DigestInfo with its NULL parameters, compared exactly)',
    ),
  context: base64Text(340)
    .optional()
    .describe(
      'ML-DSA and SLH-DSA only: the FIPS 204/205 context string (Base64, 0 to 255 bytes; empty by default); the verifier must give the same',
    ),
};

export const cryptoRequests = {
  encrypt: op({ key_id: Id, plaintext: Bytes, aad: Bytes.optional() }),
  decrypt: op({ ciphertext: Bytes.min(4), aad: Bytes.optional(), key_id: Id.optional() }),
  sign: op({ key_id: Id, data: Bytes, ...SignatureOptions }),
  verify: op({
    key_id: Id,
    data: Bytes,
    signature: Bytes.describe(
      'The signature (Base64); one that is malformed in any way (empty, wrong length, bad encoding) answers valid: false, audited as a failed check',
    ),
    version: CheckVersion,
    ...SignatureOptions,
  }),
  mac: op({ key_id: Id, data: Bytes }),
  macVerify: op({ key_id: Id, data: Bytes, mac: Bytes.min(4), version: CheckVersion }),
  dataKey: op({ key_id: Id, bytes: z.union([z.literal(16), z.literal(24), z.literal(32)]).default(32) }),
  wrap: op({ key_id: Id, key_material: Bytes.min(4) }),
  unwrap: op({ key_id: Id, wrapped: Bytes.min(4), version: z.number().int().min(1).optional() }),
  encapsulate: op({ key_id: Id }),
  decapsulate: op({ key_id: Id, ciphertext: Bytes.min(4), version: z.number().int().min(1).optional() }),
  random: op({ bytes: z.number().int().min(1).max(1024) }),
};

export const cryptoResults = {
  encrypt: z.object({ ciphertext: z.string(), key_id: z.string(), version: z.number().int() }),
  decrypt: z.object({ plaintext: z.string(), key_id: z.string(), version: z.number().int() }),
  sign: z.object({ signature: z.string(), key_id: z.string(), version: z.number().int() }),
  verify: z.object({ valid: z.boolean(), key_id: z.string(), version: MatchedVersion }),
  mac: z.object({ mac: z.string(), key_id: z.string(), version: z.number().int() }),
  macVerify: z.object({ valid: z.boolean(), key_id: z.string(), version: MatchedVersion }),
  dataKey: z.object({
    plaintext: z.string(),
    ciphertext: z.string(),
    key_id: z.string(),
    version: z.number().int(),
  }),
  wrap: z.object({ wrapped: z.string(), key_id: z.string(), version: z.number().int() }),
  unwrap: z.object({ key_material: z.string(), key_id: z.string(), version: z.number().int() }),
  encapsulate: z.object({
    ciphertext: z.string(),
    shared_secret: z.string(),
    key_id: z.string(),
    version: z.number().int(),
  }),
  decapsulate: z.object({ shared_secret: z.string(), key_id: z.string(), version: z.number().int() }),
  random: z.object({ random: z.string() }),
};

export type CryptoOp = keyof typeof cryptoRequests;
export const cryptoOps = Object.keys(cryptoRequests) as CryptoOp[];
const opPaths = {
  encrypt: 'encrypt',
  decrypt: 'decrypt',
  sign: 'sign',
  verify: 'verify',
  mac: 'mac',
  macVerify: 'mac-verify',
  dataKey: 'data-key',
  wrap: 'wrap',
  unwrap: 'unwrap',
  encapsulate: 'encapsulate',
  decapsulate: 'decapsulate',
  random: 'random',
} as const satisfies Record<CryptoOp, string>;

/** One operation of a batch: that operation's request, named by its path in `op`. */
type BatchItemSchema = {
  [O in CryptoOp]: z.ZodObject<
    Omit<(typeof cryptoRequests)[O]['shape'], 'op'> & { op: z.ZodLiteral<(typeof opPaths)[O]> }
  >;
}[CryptoOp];
const BatchItem = z.discriminatedUnion(
  'op',
  cryptoOps.map((o) => cryptoRequests[o].extend({ op: z.literal(opPaths[o]) })) as unknown as [
    BatchItemSchema,
    ...BatchItemSchema[],
  ],
);

export const cryptoCalls = {
  encrypt: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/encrypt',
    summary: 'Cryptographic operation: encrypt',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.encrypt,
    data: cryptoResults.encrypt,
  }),
  decrypt: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/decrypt',
    summary: 'Cryptographic operation: decrypt',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.decrypt,
    data: cryptoResults.decrypt,
  }),
  sign: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/sign',
    summary: 'Cryptographic operation: sign',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.sign,
    data: cryptoResults.sign,
  }),
  verify: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/verify',
    summary: 'Cryptographic operation: verify',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.verify,
    data: cryptoResults.verify,
  }),
  mac: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/mac',
    summary: 'Cryptographic operation: mac',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.mac,
    data: cryptoResults.mac,
  }),
  macVerify: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/mac-verify',
    summary: 'Cryptographic operation: mac-verify',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.macVerify,
    data: cryptoResults.macVerify,
  }),
  dataKey: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/data-key',
    summary: 'Cryptographic operation: data-key',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: APP_TOKEN,
    body: cryptoRequests.dataKey,
    data: cryptoResults.dataKey,
  }),
  wrap: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/wrap',
    summary: 'Cryptographic operation: wrap',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: withKmip(APP_TOKEN),
    body: cryptoRequests.wrap,
    data: cryptoResults.wrap,
  }),
  unwrap: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/unwrap',
    summary: 'Cryptographic operation: unwrap',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: APP_TOKEN,
    body: cryptoRequests.unwrap,
    data: cryptoResults.unwrap,
  }),
  encapsulate: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/encapsulate',
    summary: 'Cryptographic operation: encapsulate',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: APP_TOKEN,
    body: cryptoRequests.encapsulate,
    data: cryptoResults.encapsulate,
  }),
  decapsulate: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/decapsulate',
    summary: 'Cryptographic operation: decapsulate',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: APP_TOKEN,
    body: cryptoRequests.decapsulate,
    data: cryptoResults.decapsulate,
  }),
  random: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/random',
    summary: 'Cryptographic operation: random',
    tag: 'crypto',
    access: 'session',
    changesAccess: false,
    tokens: withKmip(ANY_TOKEN),
    body: cryptoRequests.random,
    data: cryptoResults.random,
  }),
  batch: defineCall({
    method: 'POST',
    path: '/v1/ksp/crypto/batch',
    summary: 'Up to 100 operations in one call; each answers on its own (code, msg, data)',
    tag: 'crypto',
    access: 'key:use',
    changesAccess: false,
    tokens: APP_TOKEN,
    body: z.object({ operations: z.array(BatchItem).min(1).max(100) }),
    data: z.array(z.object({ code: z.number(), msg: z.string(), data: z.unknown() })),
  }),
  noop: defineCall({
    method: 'GET',
    path: '/v1/ksp/crypto/ping',
    summary: 'Authenticated no-op (benchmark baseline and liveness for applications)',
    tag: 'crypto',
    access: 'session',
    tokens: withKmip(ANY_TOKEN),
    data: z.object({ ok: z.literal(true) }),
  }),
};

export { opPaths as cryptoOpPaths };
