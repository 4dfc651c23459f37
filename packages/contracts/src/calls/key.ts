import { z } from 'zod';
import { ALGORITHM_IDS, IMPORT_FORMATS, USAGE_BITS_TEXT, USAGE_WORDS } from '../algorithms.js';
import { ANY_TOKEN, APP_TOKEN, defineCall, type TokenKind } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { BASE64_PATTERN, base64Text } from '../rules/text.js';

/** The key pages' calls: a console session or a KMS sub-console token (`user/kms_token`). */
const KMS_TOKENS: readonly TokenKind[] = ['session', 'kms'];
/** Key reads an application token may also make. */
const KMS_APP_TOKENS: readonly TokenKind[] = [
  ...KMS_TOKENS,
  ...APP_TOKEN.filter((kind) => kind !== 'session'),
];

/** KMIP states are stored; the console shows three labels (docs/modules.md#key-states). */
export const keyStates = [
  'pre-active',
  'active',
  'deactivated',
  'compromised',
  'destroyed',
  'destroyed-compromised',
] as const;
export type KeyState = (typeof keyStates)[number];
export const keyStateLabels = ['in-use', 'inactive', 'disabled', 'destroyed'] as const;
export type KeyStateLabel = (typeof keyStateLabels)[number];

export function stateLabel(state: KeyState): KeyStateLabel {
  if (state === 'active') return 'in-use';
  if (state === 'pre-active') return 'inactive';
  if (state === 'deactivated' || state === 'compromised') return 'disabled';
  return 'destroyed';
}

export const keyObjectTypes = ['symmetric', 'private', 'public'] as const;
export const revocationReasons = [
  'unspecified',
  'key-compromise',
  'ca-compromise',
  'affiliation-changed',
  'superseded',
  'cessation-of-operation',
  'privilege-withdrawn',
] as const;
export const cteEncryptionModes = ['CBC', 'CBC_CS1', 'XTS'] as const;

export const Algorithm = z.enum(ALGORITHM_IDS);

/** KMIP 2.x Cryptographic Usage Mask: the bits a key may be used for (docs/api.md, "Usage mask"). */
const UsageMask = z
  .number()
  .int()
  .min(1)
  .max(0xffffff)
  .describe(
    `KMIP 2.x usage mask: the sum of these bits, all from one usage profile of the algorithm\n${USAGE_BITS_TEXT}`,
  );
/** The words naming usage bits: in key rows (`usages`) and in the key list's `usage` filter. */
export const UsageWordSchema = z.enum(USAGE_WORDS);
const KeyName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.:@/-]*$/u);
const Labels = z
  .record(z.string().trim().min(1).max(64), z.string().max(256))
  .refine((r) => Object.keys(r).length <= 32, { message: 'at most 32 labels' });
const Base64 = base64Text(65536);

/** TDE (CTE) key attributes, AES keys only (docs/modules.md#tde-key-attributes). */
export const CteAttributes = z.object({
  versioned: z.boolean(),
  persistent_on_client: z.boolean(),
  encryption_mode: z.enum(cteEncryptionModes),
});

export const KeyRow = z.object({
  id: z.string(),
  name: z.string(),
  algorithm: Algorithm,
  family: z.string(),
  object_type: z.enum(keyObjectTypes),
  size_bits: z.number().int(),
  version: z.number().int(),
  owner: z.string(),
  state: z.enum(keyStates),
  state_label: z.enum(keyStateLabels),
  usage_mask: z
    .number()
    .int()
    .describe(`KMIP 2.x usage mask (a number); its bits are named in \`usages\`\n${USAGE_BITS_TEXT}`),
  usages: z
    .array(UsageWordSchema)
    .describe('The usage bits set in usage_mask, as the words the key list filter `usage` takes'),
  exportable: z.boolean(),
  deletable: z.boolean(),
  linked_key_id: z.string().nullable(),
  pqc_parameter_set: z.string().nullable(),
  security_level: z.number().int().nullable(),
  kmip_total: z.number().int(),
  operations: z.number().int(),
  description: z.string(),
  labels: z.record(z.string(), z.string()),
  cte: CteAttributes.nullable(),
  kcv: z.string().nullable(),
  fingerprint: z.string().nullable(),
  activation_date: z.string().nullable(),
  deactivation_date: z.string().nullable(),
  revocation_reason: z.string().nullable(),
  revocation_message: z.string().nullable(),
  destroyed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** What the key list's `certificate_keys` filter does with keys a certificate or CA holds. */
export const certificateKeysModes = ['hide', 'show', 'only'] as const;

/** A key list row: a key, and the certificate or CA that holds it (or its other half). */
export const KeyListRow = KeyRow.extend({
  belongs_to: z
    .object({
      kind: z.enum(['certificate', 'ca']),
      id: z.string(),
      name: z.string(),
    })
    .nullable()
    .describe(
      'The certificate or CA of the domain whose key this is (either half of its key pair); null for a key of its own',
    ),
});

export const KeyVersionRow = z.object({
  version: z.number().int(),
  kcv: z.string().nullable(),
  fingerprint: z.string().nullable(),
  destroyed: z.boolean(),
  created_at: z.string(),
});

/** With a name or usage filter, the key list counts at most this many matches. */
export const KEY_TOTAL_CAP = 10_000;

const KeyId = z.object({ id: Id });
const Flags = {
  exportable: z.boolean().default(false),
  deletable: z.boolean().default(true),
  description: z.string().trim().max(512).default(''),
  labels: Labels.default({}),
  cte: CteAttributes.nullable().default(null),
};

export const keyCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/list',
    summary: 'Keys of the current domain (destroyed ones only when asked for)',
    tag: 'key',
    access: 'key:read',
    tokens: KMS_APP_TOKENS,
    query: PageQuery.extend({
      name: z
        .string()
        .trim()
        .max(128)
        .optional()
        .describe(
          'Names containing this text (ASCII letters in any case on SQLite, case-sensitive on PostgreSQL)',
        ),
      name_prefix: z
        .string()
        .trim()
        .min(1)
        .max(128)
        .optional()
        .describe('Names starting with this text, case-sensitive; served by an index, so fast at any size'),
      state: z.enum(keyStateLabels).optional(),
      algorithm: Algorithm.optional(),
      type: z.enum(keyObjectTypes).optional(),
      usage: UsageWordSchema.optional().describe(
        `Only keys whose usage mask has this bit\n${USAGE_BITS_TEXT}`,
      ),
      certificate_keys: z
        .enum(certificateKeysModes)
        .default('hide')
        .describe(
          'Keys held by a certificate or CA (either half of the pair): `hide` (default) leaves them out, `show` lists them with the rest, `only` lists only them',
        ),
    }),
    data: pageOf(KeyListRow).extend({
      total: z
        .number()
        .int()
        .describe(
          [
            'Keys come newest first, then by name. `total` is exact when the filters are at most',
            '`state`, `algorithm` and `type` (a count kept per domain, as fast at a million keys as at',
            `ten). With \`name\`, \`name_prefix\` or \`usage\`, matches are counted up to ${KEY_TOTAL_CAP}:`,
            'beyond that `total` is that number and `total_capped` is true (later pages still answer).',
          ].join('\n'),
        ),
      total_capped: z
        .boolean()
        .describe(`true when counting stopped at ${KEY_TOTAL_CAP}: \`total\` is a lower bound`),
    }),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/detail',
    summary: 'One key',
    tag: 'key',
    access: 'key:read',
    tokens: KMS_APP_TOKENS,
    query: KeyId,
    data: KeyRow,
  }),
  versions: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/versions',
    summary: 'The versions of a key, newest first',
    tag: 'key',
    access: 'key:read',
    tokens: KMS_APP_TOKENS,
    query: KeyId,
    data: z.array(KeyVersionRow),
  }),
  audit: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/audit',
    summary: "The key's audit trail",
    tag: 'key',
    access: 'key:read',
    tokens: KMS_TOKENS,
    query: PageQuery.extend({ id: Id }),
    data: pageOf(
      z.object({
        id: z.string(),
        at: z.string(),
        username: z.string(),
        action: z.string(),
        result: z.string(),
        source_ip: z.string(),
        count: z
          .number()
          .int()
          .min(1)
          .describe(
            'Operations the record stands for: identical successful cryptographic operations ' +
              '(same caller, address, operation and key version) committed together are recorded ' +
              'once with their number; every other record stands for 1',
          ),
      }),
    ),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/create',
    summary: 'Generate a key (a key pair is a private and a public key linked to each other)',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: z.object({
      name: KeyName,
      algorithm: Algorithm,
      usage_mask: UsageMask,
      state: z.enum(['active', 'pre-active']).default('active'),
      activation_date: z.iso.datetime({ offset: true }).optional(),
      deactivation_date: z.iso.datetime({ offset: true }).optional(),
      ...Flags,
    }),
    data: KeyRow,
  }),
  import: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/import',
    summary:
      'Import a key: secret material (a private key or a symmetric key, with its public half derived and linked as for a generated pair) or a public key alone, which only verifies, encrypts and encapsulates',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
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
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/update',
    summary:
      'Rename, describe, label a key; allow export (once allowed it stays) or deletion; TDE attributes',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: z.object({
      id: Id,
      name: KeyName.optional(),
      description: z.string().trim().max(512).optional(),
      labels: Labels.optional(),
      exportable: z.boolean().optional(),
      deletable: z.boolean().optional(),
      cte: CteAttributes.nullable().optional(),
    }),
    data: KeyRow,
  }),
  activate: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/activate',
    summary: 'Inactive → in use',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: KeyId,
    data: KeyRow,
  }),
  disable: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/disable',
    summary: 'In use or inactive → disabled (a compromise reason marks it compromised for good)',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: z.object({
      id: Id,
      reason: z.enum(revocationReasons).default('unspecified'),
      message: z.string().trim().max(512).default(''),
    }),
    data: KeyRow,
  }),
  recover: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/recover',
    summary: 'Disabled (not compromised) → in use',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: KeyId,
    data: KeyRow,
  }),
  addVersion: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/add-version',
    summary: 'Rotate: new material becomes current; older versions keep decrypting and verifying',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: KeyId,
    data: KeyRow,
  }),
  clone: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/clone',
    summary: 'A new key with the same algorithm, usage, flags and current material',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: z.object({ id: Id, new_name: KeyName }),
    data: KeyRow,
  }),
  export: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/export',
    summary:
      'Export an exportable key wrapped by the given public key (Base64 SPKI DER, RSA or SM2): raw material never leaves in clear. Public keys export as SPKI',
    tag: 'key',
    access: 'key:export',
    tokens: KMS_TOKENS,
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
  destroy: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/destroy',
    summary: 'Wipe the material of every version, keep the record (inactive or disabled keys only)',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: KeyId,
    data: KeyRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/key/delete',
    summary: 'Remove keys whose deletion is allowed and that nothing references',
    tag: 'key',
    access: 'key:write',
    tokens: KMS_TOKENS,
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
};

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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: APP_TOKEN,
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
    tokens: ANY_TOKEN,
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
    tokens: ANY_TOKEN,
    data: z.object({ ok: z.literal(true) }),
  }),
};

export { opPaths as cryptoOpPaths };
