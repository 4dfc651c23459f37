import {
  algorithmInfo,
  listAlgorithms,
  PUBLIC_KEY_USAGE,
  Usage,
  USAGE_BITS,
  validateUsage,
  type AlgorithmId,
  type AlgorithmInfo,
  type Family,
  type UsageName,
  type UsageProfileName,
  type UsageWord,
} from '@ksp/contracts';

/** Which algorithms the console offers: the families, in its order (docs/modules.md#usage-masks-and-algorithms). */
export const FAMILIES: readonly Family[] = [
  'AES',
  'SM4',
  'HMAC',
  'RSA',
  'EC',
  'ED25519',
  'SM2',
  'ML-KEM',
  'ML-DSA',
  'SLH-DSA',
];

export function familyLabel(family: string): string {
  return family === 'ED25519' ? 'Ed25519' : family;
}

export interface AlgorithmGroup {
  family: Family;
  algorithms: AlgorithmInfo[];
}

/** The catalogue grouped by family, in the console's order (every algorithm imports: `importFormats`). */
export function algorithmGroups(): AlgorithmGroup[] {
  const all = listAlgorithms();
  return FAMILIES.map((family) => ({
    family,
    algorithms: all.filter((info) => info.family === family),
  })).filter((group) => group.algorithms.length > 0);
}

/** What tells an algorithm apart inside its family: a parameter set, a curve or a size. */
export type AlgorithmVariant =
  | { kind: 'pqc'; parameterSet: string; category: number }
  | { kind: 'curve'; curve: string; bits: number }
  | { kind: 'bits'; bits: number };

export function algorithmVariant(id: AlgorithmId): AlgorithmVariant {
  const info = algorithmInfo(id);
  if (info.pqc) return { kind: 'pqc', parameterSet: info.pqc.parameterSet, category: info.pqc.category };
  if (info.curve) return { kind: 'curve', curve: info.curve, bits: info.sizeBits };
  if (info.family === 'ED25519') return { kind: 'curve', curve: 'Curve25519', bits: info.sizeBits };
  return { kind: 'bits', bits: info.sizeBits };
}

/** The usage bits the console shows, in display order. */
export const USAGE_ORDER: readonly UsageName[] = [
  'Encrypt',
  'Decrypt',
  'WrapKey',
  'UnwrapKey',
  'Sign',
  'Verify',
  'MacGenerate',
  'MacVerify',
  'KeyAgreement',
  'DeriveKey',
  'Export',
  'ContentCommitment',
  'CertificateSign',
  'CrlSign',
  'Authenticate',
  'Unrestricted',
  'FpeEncrypt',
  'FpeDecrypt',
];

/** The named bits set in a mask, in display order (bits the console does not know are left out). */
export function usageNames(mask: number): UsageName[] {
  return USAGE_ORDER.filter((name) => (mask & Usage[name]) !== 0);
}

/** The word the server uses for a usage bit (key rows' `usages`, the list's `usage` filter). */
export function usageWordOf(name: UsageName): UsageWord {
  const bit = USAGE_BITS.find((entry) => entry.name === name);
  if (!bit) throw new Error(`usage ${name} has no word`);
  return bit.word;
}

/** A key row's usage words in display order (words the console does not know are left out). */
export function orderedUsages(usages: readonly string[]): UsageWord[] {
  return USAGE_ORDER.map(usageWordOf).filter((word) => usages.includes(word));
}

export function maskOf(names: readonly UsageName[]): number {
  return names.reduce((mask, name) => mask | Usage[name], 0);
}

export function profilesOf(id: AlgorithmId): UsageProfileName[] {
  return algorithmInfo(id).usageProfiles.map((profile) => profile.name);
}

/** RSA and SM2 keys encrypt or sign, never both: the form asks which first. */
export function needsProfileChoice(id: AlgorithmId): boolean {
  return algorithmInfo(id).usageProfiles.length > 1;
}

/** The usages a key of `id` may be given under `profile` (the only profile when there is one). */
export function allowedUsages(id: AlgorithmId, profile?: UsageProfileName): UsageName[] {
  const profiles = algorithmInfo(id).usageProfiles;
  const chosen = profile
    ? profiles.find((p) => p.name === profile)
    : profiles.length === 1
      ? profiles[0]
      : undefined;
  return chosen ? usageNames(chosen.mask) : [];
}

/** The usages a public key imported alone may have: those of `allowedUsages` it can honour. */
export function publicUsages(id: AlgorithmId, profile?: UsageProfileName): UsageName[] {
  return allowedUsages(id, profile).filter((name) => (Usage[name] & PUBLIC_KEY_USAGE) !== 0);
}

export type SignatureScheme = 'ecdsa' | 'sm2' | 'rsa' | 'ed25519' | 'pqc';

/**
 * How a key's signatures are encoded (`crypto/sign` and `crypto/verify`), for a key that signs or
 * verifies: ECDSA and SM2 in DER or P1363 (`signature_format`), RSA in PSS or PKCS#1 v1.5
 * (`rsa_padding`), Ed25519 and the post-quantum schemes in their one standard encoding.
 */
export function signatureScheme(family: string, usages: readonly string[]): SignatureScheme | null {
  if (!usages.includes('sign') && !usages.includes('verify')) return null;
  switch (family) {
    case 'EC':
      return 'ecdsa';
    case 'SM2':
      return 'sm2';
    case 'RSA':
      return 'rsa';
    case 'ED25519':
      return 'ed25519';
    case 'ML-DSA':
    case 'SLH-DSA':
      return 'pqc';
    default:
      return null;
  }
}

/** Profile and usages a form starts with after choosing `id` (all usages of the profile ticked). */
export function initialUsage(id: AlgorithmId): {
  profile: UsageProfileName | undefined;
  usages: UsageName[];
} {
  if (needsProfileChoice(id)) return { profile: undefined, usages: [] };
  return { profile: profilesOf(id)[0], usages: allowedUsages(id) };
}

export type UsageProblem = 'empty' | 'invalid';

/** The mask of the chosen usages, checked with the contract's `validateUsage` (the server's own rule). */
export function checkUsage(
  id: AlgorithmId,
  usages: readonly UsageName[] | undefined,
): { ok: true; mask: number } | { ok: false; problem: UsageProblem } {
  if (!usages || usages.length === 0) return { ok: false, problem: 'empty' };
  const mask = maskOf(usages);
  return validateUsage(id, mask).valid ? { ok: true, mask } : { ok: false, problem: 'invalid' };
}
