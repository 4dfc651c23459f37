/**
 * The algorithm catalogue: every key algorithm the server can generate and use,
 * with its family, size, PQC parameter set (docs/modules.md#usage-masks-and-algorithms) and the usage masks
 * it accepts (KMIP 2.x `Cryptographic Usage Mask` bits, docs/modules.md#usage-masks-and-algorithms).
 */

/** KMIP 2.x usage-mask bits (never CipherTrust's FPE values, docs/modules.md#decisions). */
export const Usage = {
  Sign: 0x1,
  Verify: 0x2,
  Encrypt: 0x4,
  Decrypt: 0x8,
  WrapKey: 0x10,
  UnwrapKey: 0x20,
  Export: 0x40,
  MacGenerate: 0x80,
  MacVerify: 0x100,
  DeriveKey: 0x200,
  ContentCommitment: 0x400,
  KeyAgreement: 0x800,
  CertificateSign: 0x1000,
  CrlSign: 0x2000,
  Authenticate: 0x100000,
  Unrestricted: 0x200000,
  FpeEncrypt: 0x400000,
  FpeDecrypt: 0x800000,
} as const;

export type UsageName = keyof typeof Usage;

/**
 * Each usage bit on the wire: the word that names it (in key rows' `usages` and the key
 * list's `usage` filter), what it means, and which calls of the crypto API it gates. The
 * words of the bits that gate an operation are that operation's path segment. Bits that gate
 * nothing are KMIP's; no algorithm of the catalogue accepts them yet (`validateUsage`).
 */
export const USAGE_BITS = [
  { word: 'sign', name: 'Sign', meaning: 'make signatures', gates: ['crypto/sign'] },
  { word: 'verify', name: 'Verify', meaning: 'check signatures', gates: ['crypto/verify'] },
  {
    word: 'encrypt',
    name: 'Encrypt',
    meaning: 'encrypt data and make data keys',
    gates: ['crypto/encrypt', 'crypto/data-key'],
  },
  { word: 'decrypt', name: 'Decrypt', meaning: 'decrypt data', gates: ['crypto/decrypt'] },
  {
    word: 'wrap',
    name: 'WrapKey',
    meaning: 'wrap other keys (AES key wrap, RFC 5649)',
    gates: ['crypto/wrap'],
  },
  { word: 'unwrap', name: 'UnwrapKey', meaning: 'unwrap wrapped keys', gates: ['crypto/unwrap'] },
  {
    word: 'export',
    name: 'Export',
    meaning: "KMIP Export (export is governed by the key's `exportable` flag instead)",
    gates: [],
  },
  { word: 'mac', name: 'MacGenerate', meaning: 'compute MACs (HMAC)', gates: ['crypto/mac'] },
  { word: 'mac-verify', name: 'MacVerify', meaning: 'check MACs', gates: ['crypto/mac-verify'] },
  { word: 'derive-key', name: 'DeriveKey', meaning: 'KMIP key derivation', gates: [] },
  {
    word: 'content-commitment',
    name: 'ContentCommitment',
    meaning: 'KMIP non-repudiation',
    gates: [],
  },
  {
    word: 'key-agreement',
    name: 'KeyAgreement',
    meaning: 'agree on a shared secret (ML-KEM encapsulation)',
    gates: ['crypto/encapsulate', 'crypto/decapsulate'],
  },
  { word: 'certificate-sign', name: 'CertificateSign', meaning: 'sign certificates', gates: [] },
  { word: 'crl-sign', name: 'CrlSign', meaning: 'sign CRLs', gates: [] },
  { word: 'authenticate', name: 'Authenticate', meaning: 'KMIP authentication', gates: [] },
  { word: 'unrestricted', name: 'Unrestricted', meaning: 'KMIP unrestricted', gates: [] },
  { word: 'fpe-encrypt', name: 'FpeEncrypt', meaning: 'format-preserving encryption', gates: [] },
  { word: 'fpe-decrypt', name: 'FpeDecrypt', meaning: 'format-preserving decryption', gates: [] },
] as const satisfies readonly {
  word: string;
  name: UsageName;
  meaning: string;
  gates: readonly string[];
}[];

export type UsageWord = (typeof USAGE_BITS)[number]['word'];
export const USAGE_WORDS = USAGE_BITS.map((b) => b.word) as [UsageWord, ...UsageWord[]];

/** The bit a usage word names. */
export function usageBit(word: UsageWord): number {
  const entry = USAGE_BITS.find((b) => b.word === word);
  if (!entry) throw new Error(`Unknown usage '${String(word)}'`);
  return Usage[entry.name];
}

/** The words of the known bits set in a mask, in bit order (unknown bits are left out). */
export function usageWords(mask: number): UsageWord[] {
  return USAGE_BITS.filter((b) => Math.floor(mask / Usage[b.name]) % 2 === 1).map((b) => b.word);
}

/** One line per bit, for schema descriptions (OpenAPI). */
export const USAGE_BITS_TEXT = USAGE_BITS.map(
  (b) =>
    `0x${Usage[b.name].toString(16)} ${b.word} (${b.name}): ${b.meaning}` +
    (b.gates.length ? `; gates ${b.gates.join(', ')}` : '; gates nothing, accepted by no algorithm yet'),
).join('\n');

export const ALGORITHM_IDS = [
  'AES-128',
  'AES-192',
  'AES-256',
  'SM4',
  'HMAC-SHA256',
  'HMAC-SHA384',
  'HMAC-SHA512',
  'RSA-2048',
  'RSA-3072',
  'RSA-4096',
  'EC-P256',
  'EC-P384',
  'EC-P521',
  'EC-SECP256K1',
  'ED25519',
  'SM2',
  'ML-KEM-512',
  'ML-KEM-768',
  'ML-KEM-1024',
  'ML-DSA-44',
  'ML-DSA-65',
  'ML-DSA-87',
  'SLH-DSA-SHA2-128S',
  'SLH-DSA-SHA2-128F',
  'SLH-DSA-SHA2-192S',
  'SLH-DSA-SHA2-192F',
  'SLH-DSA-SHA2-256S',
  'SLH-DSA-SHA2-256F',
  'SLH-DSA-SHAKE-128S',
  'SLH-DSA-SHAKE-128F',
  'SLH-DSA-SHAKE-192S',
  'SLH-DSA-SHAKE-192F',
  'SLH-DSA-SHAKE-256S',
  'SLH-DSA-SHAKE-256F',
] as const;

export type AlgorithmId = (typeof ALGORITHM_IDS)[number];

export type Family =
  'AES' | 'SM4' | 'HMAC' | 'RSA' | 'EC' | 'ED25519' | 'SM2' | 'ML-KEM' | 'ML-DSA' | 'SLH-DSA';

/** Symmetric keys are one secret; asymmetric keys are a private/public pair. */
export type KeyKind = 'symmetric' | 'asymmetric';

export type EcCurve = 'P-256' | 'P-384' | 'P-521' | 'secp256k1';

export type DigestName = 'SHA-256' | 'SHA-384' | 'SHA-512' | 'SM3';

/** What a key may be used for; a key's usage mask has to fit inside one profile. */
export type UsageProfileName = 'encryption' | 'signing' | 'mac' | 'key-agreement';

export interface UsageProfile {
  readonly name: UsageProfileName;
  readonly mask: number;
}

/** FIPS 203/204/205 parameters; byte sizes are the standards' tables. */
export interface PqcParameters {
  /** The parameter set as the standard spells it, e.g. `SLH-DSA-SHA2-128s`. */
  readonly parameterSet: string;
  /** NIST security category ("security level" on the console). */
  readonly category: 1 | 2 | 3 | 5;
  readonly publicKeyBytes: number;
  /** The expanded private key (ML-KEM's decapsulation key, not its 64-byte seed). */
  readonly privateKeyBytes: number;
  readonly ciphertextBytes?: number;
  readonly sharedSecretBytes?: number;
  readonly signatureBytes?: number;
}

export interface AlgorithmInfo {
  readonly id: AlgorithmId;
  /** One byte naming the algorithm in binary formats (the ciphertext envelope). Never reused. */
  readonly code: number;
  readonly family: Family;
  readonly kind: KeyKind;
  /**
   * The key's cryptographic length in bits: the symmetric key length, the RSA
   * modulus, the curve order; for PQC (which has no single key length) the
   * classical strength of its category (1–2 → 128, 3 → 192, 5 → 256).
   */
  readonly sizeBits: number;
  readonly curve?: EcCurve;
  /** The digest a signature or MAC uses with this key. */
  readonly digest?: DigestName;
  readonly pqc?: PqcParameters;
  readonly usageProfiles: readonly UsageProfile[];
}

const ENCRYPTION: UsageProfile = {
  name: 'encryption',
  mask: Usage.Encrypt | Usage.Decrypt | Usage.WrapKey | Usage.UnwrapKey,
};
const SIGNING: UsageProfile = { name: 'signing', mask: Usage.Sign | Usage.Verify };
const MAC: UsageProfile = { name: 'mac', mask: Usage.MacGenerate | Usage.MacVerify };
const KEY_AGREEMENT: UsageProfile = { name: 'key-agreement', mask: Usage.KeyAgreement };

type Definition = Omit<AlgorithmInfo, 'id'>;

const symmetric = (
  code: number,
  family: Family,
  sizeBits: number,
  profile: UsageProfile,
  digest?: DigestName,
) =>
  ({
    code,
    family,
    kind: 'symmetric',
    sizeBits,
    usageProfiles: [profile],
    ...(digest ? { digest } : {}),
  }) as const;

const rsa = (code: number, sizeBits: number): Definition => ({
  code,
  family: 'RSA',
  kind: 'asymmetric',
  sizeBits,
  digest: 'SHA-256',
  usageProfiles: [ENCRYPTION, SIGNING],
});

const ec = (code: number, curve: EcCurve, sizeBits: number, digest: DigestName): Definition => ({
  code,
  family: 'EC',
  kind: 'asymmetric',
  sizeBits,
  curve,
  digest,
  usageProfiles: [SIGNING],
});

const STRENGTH = { 1: 128, 2: 128, 3: 192, 5: 256 } as const;

const pqc = (code: number, family: Family, profile: UsageProfile, parameters: PqcParameters): Definition => ({
  code,
  family,
  kind: 'asymmetric',
  sizeBits: STRENGTH[parameters.category],
  pqc: parameters,
  usageProfiles: [profile],
});

const slhDsa = (
  code: number,
  parameterSet: string,
  category: 1 | 3 | 5,
  signatureBytes: number,
): Definition => {
  const n = STRENGTH[category] / 8;
  return pqc(code, 'SLH-DSA', SIGNING, {
    parameterSet,
    category,
    publicKeyBytes: 2 * n,
    privateKeyBytes: 4 * n,
    signatureBytes,
  });
};

const DEFINITIONS: Record<AlgorithmId, Definition> = {
  'AES-128': symmetric(1, 'AES', 128, ENCRYPTION),
  'AES-192': symmetric(2, 'AES', 192, ENCRYPTION),
  'AES-256': symmetric(3, 'AES', 256, ENCRYPTION),
  SM4: symmetric(4, 'SM4', 128, ENCRYPTION),
  'HMAC-SHA256': symmetric(5, 'HMAC', 256, MAC, 'SHA-256'),
  'HMAC-SHA384': symmetric(6, 'HMAC', 384, MAC, 'SHA-384'),
  'HMAC-SHA512': symmetric(7, 'HMAC', 512, MAC, 'SHA-512'),
  'RSA-2048': rsa(16, 2048),
  'RSA-3072': rsa(17, 3072),
  'RSA-4096': rsa(18, 4096),
  'EC-P256': ec(32, 'P-256', 256, 'SHA-256'),
  'EC-P384': ec(33, 'P-384', 384, 'SHA-384'),
  'EC-P521': ec(34, 'P-521', 521, 'SHA-512'),
  'EC-SECP256K1': ec(35, 'secp256k1', 256, 'SHA-256'),
  ED25519: { code: 36, family: 'ED25519', kind: 'asymmetric', sizeBits: 256, usageProfiles: [SIGNING] },
  SM2: {
    code: 48,
    family: 'SM2',
    kind: 'asymmetric',
    sizeBits: 256,
    digest: 'SM3',
    usageProfiles: [ENCRYPTION, SIGNING],
  },
  'ML-KEM-512': pqc(64, 'ML-KEM', KEY_AGREEMENT, {
    parameterSet: 'ML-KEM-512',
    category: 1,
    publicKeyBytes: 800,
    privateKeyBytes: 1632,
    ciphertextBytes: 768,
    sharedSecretBytes: 32,
  }),
  'ML-KEM-768': pqc(65, 'ML-KEM', KEY_AGREEMENT, {
    parameterSet: 'ML-KEM-768',
    category: 3,
    publicKeyBytes: 1184,
    privateKeyBytes: 2400,
    ciphertextBytes: 1088,
    sharedSecretBytes: 32,
  }),
  'ML-KEM-1024': pqc(66, 'ML-KEM', KEY_AGREEMENT, {
    parameterSet: 'ML-KEM-1024',
    category: 5,
    publicKeyBytes: 1568,
    privateKeyBytes: 3168,
    ciphertextBytes: 1568,
    sharedSecretBytes: 32,
  }),
  'ML-DSA-44': pqc(72, 'ML-DSA', SIGNING, {
    parameterSet: 'ML-DSA-44',
    category: 2,
    publicKeyBytes: 1312,
    privateKeyBytes: 2560,
    signatureBytes: 2420,
  }),
  'ML-DSA-65': pqc(73, 'ML-DSA', SIGNING, {
    parameterSet: 'ML-DSA-65',
    category: 3,
    publicKeyBytes: 1952,
    privateKeyBytes: 4032,
    signatureBytes: 3309,
  }),
  'ML-DSA-87': pqc(74, 'ML-DSA', SIGNING, {
    parameterSet: 'ML-DSA-87',
    category: 5,
    publicKeyBytes: 2592,
    privateKeyBytes: 4896,
    signatureBytes: 4627,
  }),
  'SLH-DSA-SHA2-128S': slhDsa(80, 'SLH-DSA-SHA2-128s', 1, 7856),
  'SLH-DSA-SHA2-128F': slhDsa(81, 'SLH-DSA-SHA2-128f', 1, 17088),
  'SLH-DSA-SHA2-192S': slhDsa(82, 'SLH-DSA-SHA2-192s', 3, 16224),
  'SLH-DSA-SHA2-192F': slhDsa(83, 'SLH-DSA-SHA2-192f', 3, 35664),
  'SLH-DSA-SHA2-256S': slhDsa(84, 'SLH-DSA-SHA2-256s', 5, 29792),
  'SLH-DSA-SHA2-256F': slhDsa(85, 'SLH-DSA-SHA2-256f', 5, 49856),
  'SLH-DSA-SHAKE-128S': slhDsa(86, 'SLH-DSA-SHAKE-128s', 1, 7856),
  'SLH-DSA-SHAKE-128F': slhDsa(87, 'SLH-DSA-SHAKE-128f', 1, 17088),
  'SLH-DSA-SHAKE-192S': slhDsa(88, 'SLH-DSA-SHAKE-192s', 3, 16224),
  'SLH-DSA-SHAKE-192F': slhDsa(89, 'SLH-DSA-SHAKE-192f', 3, 35664),
  'SLH-DSA-SHAKE-256S': slhDsa(90, 'SLH-DSA-SHAKE-256s', 5, 29792),
  'SLH-DSA-SHAKE-256F': slhDsa(91, 'SLH-DSA-SHAKE-256f', 5, 49856),
};

const CATALOGUE: ReadonlyMap<AlgorithmId, AlgorithmInfo> = new Map(
  ALGORITHM_IDS.map((id) => [id, Object.freeze({ id, ...DEFINITIONS[id] })]),
);

const BY_CODE: ReadonlyMap<number, AlgorithmInfo> = new Map(
  [...CATALOGUE.values()].map((info) => [info.code, info]),
);

export function isAlgorithmId(value: string): value is AlgorithmId {
  return CATALOGUE.has(value as AlgorithmId);
}

export function algorithmInfo(id: AlgorithmId): AlgorithmInfo {
  const info = CATALOGUE.get(id);
  if (!info) throw new Error(`Unknown algorithm '${String(id)}'`);
  return info;
}

/** The algorithm a one-byte wire code names, or null for an unknown code. */
export function algorithmByCode(code: number): AlgorithmInfo | null {
  return BY_CODE.get(code) ?? null;
}

export function listAlgorithms(): AlgorithmInfo[] {
  return [...CATALOGUE.values()];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** Names of the bits set in a mask, e.g. `['Encrypt (0x4)', 'Decrypt (0x8)']`; unknown bits by value. */
export function describeUsage(mask: number): string[] {
  const names: string[] = [];
  for (let index = 0; index < 32; index++) {
    const bit = 2 ** index;
    if (Math.floor(mask / bit) % 2 !== 1) continue;
    const name = (Object.keys(Usage) as UsageName[]).find((key) => Usage[key] === bit);
    names.push(name ? `${name} (${hex(bit)})` : `unknown bit ${hex(bit)}`);
  }
  return names;
}

export type UsageCheck =
  | { readonly valid: true; readonly profile: UsageProfileName }
  | { readonly valid: false; readonly reason: string };

const MAX_MASK = 0xffffffff;

/**
 * Checks that a usage mask suits the algorithm: only bits the algorithm can honour,
 * and all of them from one profile (an RSA or SM2 key encrypts or signs, never both).
 */
export function validateUsage(algorithm: AlgorithmId, mask: number): UsageCheck {
  const info = algorithmInfo(algorithm);
  if (!Number.isInteger(mask) || mask <= 0 || mask > MAX_MASK) {
    return { valid: false, reason: `Usage mask must be an integer from 1 to ${hex(MAX_MASK)}, got ${mask}` };
  }
  const allowed = info.usageProfiles.reduce((all, profile) => all | profile.mask, 0);
  const refused = (mask & ~allowed) >>> 0;
  if (refused !== 0) {
    return {
      valid: false,
      reason:
        `${algorithm} keys cannot be used for ${describeUsage(refused).join(', ')}; ` +
        `allowed: ${describeUsage(allowed).join(', ')}`,
    };
  }
  const profile = info.usageProfiles.find((candidate) => (mask & ~candidate.mask) === 0);
  if (!profile) {
    const options = info.usageProfiles.map(
      (candidate) => `${candidate.name} (${describeUsage(candidate.mask).join(', ')})`,
    );
    return {
      valid: false,
      reason: `${algorithm} keys are used for ${options.join(' or for ')}, not both; mask ${hex(mask)} mixes them`,
    };
  }
  return { valid: true, profile: profile.name };
}

/**
 * How `key/import` reads `content` (docs/api.md, "Import formats"):
 * - `raw`: the secret key bytes (AES, SM4: exactly the key size; HMAC: 16 to 128 bytes);
 * - `pkcs8`: a PKCS#8 DER private key (RSA, EC, Ed25519);
 * - `sm2-scalar`: the 32-byte SM2 private scalar d (GM/T 0009);
 * - `spki`: a SubjectPublicKeyInfo DER public key (RSA, EC, Ed25519, SM2): a public key;
 * - `pem`: PEM text (not Base64): a `PUBLIC KEY` block is read as `spki`, a `PRIVATE KEY`
 *   block as `pkcs8` (RSA, EC, Ed25519, SM2 public keys);
 * - `seed`: the FIPS 203/204/205 key-generation seed (ML-KEM d‖z, 64 bytes; ML-DSA ξ,
 *   32 bytes; SLH-DSA SK.seed‖SK.prf‖PK.seed, 3n bytes): the private key, its public half derived;
 * - `expanded`: the standard's private-key encoding (ML-KEM decapsulation key, ML-DSA private
 *   key, SLH-DSA SK.seed‖SK.prf‖PK.seed‖PK.root), what `key/export` calls `standard`;
 * - `public`: the standard's public-key encoding (ML-KEM encapsulation key, ML-DSA public key,
 *   SLH-DSA PK.seed‖PK.root): a public key.
 */
export const IMPORT_FORMATS = [
  'raw',
  'pkcs8',
  'sm2-scalar',
  'spki',
  'pem',
  'seed',
  'expanded',
  'public',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The formats that make a public key (no private half); `pem` decides by its block label. */
export const PUBLIC_IMPORT_FORMATS: readonly ImportFormat[] = ['spki', 'public'];

/**
 * The usage bits a public key imported alone can honour: verify, encrypt, wrap, encapsulate
 * (KeyAgreement). Others need the private key; `key/import` refuses them (`key.importPublicUsage`).
 */
export const PUBLIC_KEY_USAGE = Usage.Verify | Usage.Encrypt | Usage.WrapKey | Usage.KeyAgreement;

/** The formats `key/import` takes for an algorithm, the default (used when `format` is absent) first. */
export function importFormats(id: AlgorithmId): readonly ImportFormat[] {
  const info = algorithmInfo(id);
  if (info.pqc) return ['seed', 'expanded', 'public'];
  if (info.kind === 'symmetric') return ['raw'];
  if (info.family === 'SM2') return ['sm2-scalar', 'spki', 'pem'];
  return ['pkcs8', 'spki', 'pem'];
}

/**
 * What `key/import` accepts for an algorithm in a format: raw bytes of the key's size (16 to
 * 128 for HMAC), the 32-byte SM2 scalar, PKCS#8 or SPKI DER, PEM, or the post-quantum
 * standards' seeds and encodings (exact lengths). Without a format: the algorithm's default
 * (post-quantum keys have none: their format is always named).
 */
export type ImportExpectation =
  | { kind: 'raw'; bytes: number }
  | { kind: 'raw-range'; min: number; max: number }
  | { kind: 'sm2-scalar'; bytes: 32 }
  | { kind: 'pkcs8' }
  | { kind: 'spki' }
  | { kind: 'pem' }
  | { kind: 'seed'; bytes: number }
  | { kind: 'expanded'; bytes: number }
  | { kind: 'public'; bytes: number }
  | { kind: 'unsupported' };

/** The seed lengths of FIPS 203 (d‖z), FIPS 204 (ξ) and FIPS 205 (3n). */
function pqcSeedLength(info: AlgorithmInfo): number {
  if (info.family === 'ML-KEM') return 64;
  if (info.family === 'ML-DSA') return 32;
  return (3 * info.sizeBits) / 8;
}

export function importExpectation(id: AlgorithmId, format?: ImportFormat): ImportExpectation {
  const info = algorithmInfo(id);
  if (format === undefined) {
    if (info.pqc) return { kind: 'unsupported' };
    format = importFormats(id)[0];
  }
  if (!format || !importFormats(id).includes(format)) return { kind: 'unsupported' };
  switch (format) {
    case 'raw':
      return info.family === 'HMAC'
        ? { kind: 'raw-range', min: 16, max: 128 }
        : { kind: 'raw', bytes: info.sizeBits / 8 };
    case 'sm2-scalar':
      return { kind: 'sm2-scalar', bytes: 32 };
    case 'seed':
      return { kind: 'seed', bytes: pqcSeedLength(info) };
    case 'expanded':
      return { kind: 'expanded', bytes: info.pqc?.privateKeyBytes ?? 0 };
    case 'public':
      return { kind: 'public', bytes: info.pqc?.publicKeyBytes ?? 0 };
    default:
      return { kind: format };
  }
}

/** The length problem of `bytes` imported for `id`, or null when it fits (DER and PEM are parsed, not counted). */
export function importLengthMismatch(
  id: AlgorithmId,
  bytes: number,
  format?: ImportFormat,
): { expected: string; got: number } | null {
  const expectation = importExpectation(id, format);
  switch (expectation.kind) {
    case 'raw':
    case 'sm2-scalar':
    case 'seed':
    case 'expanded':
    case 'public':
      return bytes === expectation.bytes ? null : { expected: String(expectation.bytes), got: bytes };
    case 'raw-range':
      return bytes >= expectation.min && bytes <= expectation.max
        ? null
        : { expected: `${expectation.min}–${expectation.max}`, got: bytes };
    default:
      return null;
  }
}
