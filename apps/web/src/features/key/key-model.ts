import { generatePath } from 'react-router';
import {
  algorithmInfo,
  api,
  listAlgorithms,
  menuModel,
  revocationReasons,
  Usage,
  USAGE_BITS,
  validateUsage,
  type AlgorithmId,
  type AlgorithmInfo,
  type Family,
  type MenuNode,
  type PageKey,
  type UsageName,
  type UsageProfileName,
  type UsageWord,
} from '@ksp/contracts';
import type { CreateKeyBody, ImportKeyBody, KeyListQuery, KeyRow, UpdateKeyBody } from '../../api/key';

/**
 * The key pages' rules, kept out of the components: which algorithms and usages may go
 * together, what import content must look like, which action a key's state allows, and
 * the bodies sent to the server.
 */

// ---------------------------------------------------------------- algorithms

/** The families in the order the console offers them (MODULES.md §1.5). */
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

/** Post-quantum keys are generated only: the server imports classical keys (contract `key/import`). */
export function canImport(id: AlgorithmId): boolean {
  return !algorithmInfo(id).pqc;
}

/** The catalogue grouped by family, in the console's order (import offers only importable ones). */
export function algorithmGroups(options: { importable?: boolean } = {}): AlgorithmGroup[] {
  const all = listAlgorithms().filter((info) => !options.importable || canImport(info.id));
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

// ---------------------------------------------------------------- usage

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

// ---------------------------------------------------------------- Base64 and import content

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 as pasted: PEM armour lines and whitespace (line breaks of `base64`, `openssl`) removed. */
export function normalizeBase64(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(line.trim()))
    .join('')
    .replace(/\s+/g, '');
}

/** Whether `text` (normalized) is non-empty standard, padded Base64, as the contract requires. */
export function isBase64(text: string | undefined | null): boolean {
  if (!text) return false;
  const clean = normalizeBase64(text);
  return clean.length > 0 && BASE64.test(clean);
}

/** Bytes that a (valid, normalized) Base64 string decodes to. */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** What `key/import` accepts for an algorithm (key.service.ts), for the hint and the length check. */
export type ImportExpectation =
  | { kind: 'raw'; bytes: number }
  | { kind: 'raw-range'; min: number; max: number }
  | { kind: 'sm2-scalar'; bytes: 32 }
  | { kind: 'pkcs8' }
  | { kind: 'unsupported' };

export function importExpectation(id: AlgorithmId): ImportExpectation {
  const info = algorithmInfo(id);
  if (info.pqc) return { kind: 'unsupported' };
  if (info.family === 'HMAC') return { kind: 'raw-range', min: 16, max: 128 };
  if (info.kind === 'symmetric') return { kind: 'raw', bytes: info.sizeBits / 8 };
  if (info.family === 'SM2') return { kind: 'sm2-scalar', bytes: 32 };
  return { kind: 'pkcs8' };
}

/** The content's length problem, or null when it fits (PKCS#8 structure is the server's to check). */
export function importLengthProblem(
  id: AlgorithmId,
  content: string,
): { expected: string; got: number } | null {
  const expectation = importExpectation(id);
  const got = base64ByteLength(normalizeBase64(content));
  switch (expectation.kind) {
    case 'raw':
    case 'sm2-scalar':
      return got === expectation.bytes ? null : { expected: String(expectation.bytes), got };
    case 'raw-range':
      return got >= expectation.min && got <= expectation.max
        ? null
        : { expected: `${expectation.min}–${expectation.max}`, got };
    default:
      return null;
  }
}

// ---------------------------------------------------------------- labels and TDE attributes

export interface LabelRow {
  key: string;
  value: string;
}

export const MAX_LABELS = 32;

export function labelsToRecord(rows: readonly LabelRow[] | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  for (const row of rows ?? []) {
    const key = row.key.trim();
    if (key) record[key] = row.value;
  }
  return record;
}

export function recordToLabels(record: Readonly<Record<string, string>>): LabelRow[] {
  return Object.entries(record).map(([key, value]) => ({ key, value }));
}

export type LabelProblem = 'keyRequired' | 'duplicate' | 'tooMany' | 'tooLong';

/** What is wrong with a label list (a row with a value needs a key; keys are unique), or null. */
export function labelProblem(rows: readonly LabelRow[] | undefined): LabelProblem | null {
  const list = rows ?? [];
  const keys = list.map((row) => row.key.trim());
  if (list.some((row, i) => !keys[i] && row.value.trim())) return 'keyRequired';
  const named = keys.filter(Boolean);
  if (new Set(named).size !== named.length) return 'duplicate';
  if (named.length > MAX_LABELS) return 'tooMany';
  if (list.some((row, i) => (keys[i]?.length ?? 0) > 64 || row.value.length > 256)) return 'tooLong';
  return null;
}

export type CteAttributes = NonNullable<KeyRow['cte']>;
export const DEFAULT_CTE: CteAttributes = {
  versioned: false,
  persistent_on_client: false,
  encryption_mode: 'CBC_CS1',
};

/** TDE (CTE) attributes apply to AES keys only (MODULES.md §1.7). */
export function supportsCte(id: AlgorithmId): boolean {
  return algorithmInfo(id).family === 'AES';
}

// ---------------------------------------------------------------- request bodies

export interface KeyFormValues {
  name: string;
  algorithm: AlgorithmId;
  profile?: UsageProfileName | undefined;
  usages: UsageName[];
  state: 'active' | 'pre-active';
  exportable: boolean;
  deletable: boolean;
  description?: string | undefined;
  labels?: LabelRow[] | undefined;
  cte?: CteAttributes | null | undefined;
  /** Import only: the key material, Base64. */
  content?: string | undefined;
}

export function initialKeyForm(algorithm: AlgorithmId = 'AES-256'): KeyFormValues {
  const { profile, usages } = initialUsage(algorithm);
  return {
    name: '',
    algorithm,
    profile,
    usages,
    state: 'active',
    exportable: false,
    deletable: true,
    description: '',
    labels: [],
    cte: null,
    content: '',
  };
}

function usageMaskOrThrow(values: KeyFormValues): number {
  const check = checkUsage(values.algorithm, values.usages);
  if (!check.ok) throw new Error(`usage ${check.problem} for ${values.algorithm}`);
  return check.mask;
}

export function buildCreateBody(values: KeyFormValues): CreateKeyBody {
  return {
    name: values.name.trim(),
    algorithm: values.algorithm,
    usage_mask: usageMaskOrThrow(values),
    state: values.state,
    exportable: values.exportable,
    deletable: values.deletable,
    description: (values.description ?? '').trim(),
    labels: labelsToRecord(values.labels),
    cte: supportsCte(values.algorithm) ? (values.cte ?? null) : null,
  };
}

export function buildImportBody(values: KeyFormValues): ImportKeyBody {
  return { ...buildCreateBody(values), content: normalizeBase64(values.content ?? '') };
}

export interface KeyEditValues {
  name: string;
  description?: string | undefined;
  labels?: LabelRow[] | undefined;
  exportable: boolean;
  deletable: boolean;
  cte?: CteAttributes | null | undefined;
}

export function editValuesOf(row: KeyRow): KeyEditValues {
  return {
    name: row.name,
    description: row.description,
    labels: recordToLabels(row.labels),
    exportable: row.exportable,
    deletable: row.deletable,
    cte: row.cte,
  };
}

/**
 * The update body: export is only ever switched on (the server refuses to take it back),
 * TDE attributes only for AES keys.
 */
export function buildUpdateBody(row: KeyRow, values: KeyEditValues): UpdateKeyBody {
  return {
    id: row.id,
    ...(values.name.trim() !== row.name ? { name: values.name.trim() } : {}),
    description: (values.description ?? '').trim(),
    labels: labelsToRecord(values.labels),
    ...(values.exportable && !row.exportable ? { exportable: true } : {}),
    deletable: values.deletable,
    ...(supportsCte(row.algorithm) ? { cte: values.cte ?? null } : {}),
  };
}

// ---------------------------------------------------------------- lifecycle actions

/** The key state machine and the permission of each action are the contract's (shared with the server). */
export {
  availableKeyActions as availableActions,
  isCompromiseReason,
  isPairedPublic,
  keyActionAllowed as actionAllowed,
  type KeyAction,
} from '@ksp/contracts';

export function isRevocationReason(value: string | null): value is (typeof revocationReasons)[number] {
  return (revocationReasons as readonly (string | null)[]).includes(value);
}

/** The audit actions of keys the console names ('key.add-version' → 'add-version'). */
export const AUDIT_ACTIONS = [
  'create',
  'import',
  'update',
  'activate',
  'disable',
  'recover',
  'add-version',
  'clone',
  'export',
  'destroy',
  'delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function auditActionOf(action: string): AuditAction | null {
  const name = action.startsWith('key.') ? action.slice(4) : '';
  return (AUDIT_ACTIONS as readonly string[]).includes(name) ? (name as AuditAction) : null;
}

// ---------------------------------------------------------------- list query

export const LIST_FILTERS = ['name', 'state', 'algorithm', 'type', 'usage'] as const;
export type ListFilterName = (typeof LIST_FILTERS)[number];

function listQuerySchema() {
  const schema = api.key.list.query;
  if (!schema) throw new Error('key/list has no query schema');
  return schema;
}
const listShape = listQuerySchema().shape;
export const STATE_FILTERS = listShape.state.unwrap().options;
export const TYPE_FILTERS = listShape.type.unwrap().options;
/** The usage filter offers the bits that gate an operation (no algorithm accepts the others). */
export const USAGE_FILTERS = listShape.usage
  .unwrap()
  .options.filter((word) => USAGE_BITS.some((bit) => bit.word === word && bit.gates.length > 0));

/** The list call's query from the URL's filters; values the contract would refuse are dropped. */
export function keyListQuery(page: number, pageSize: number, filters: Record<string, string>): KeyListQuery {
  const query: KeyListQuery = { page, page_size: pageSize };
  const name = filters.name?.trim();
  if (name) query.name = name.slice(0, 128);
  const state = listShape.state.safeParse(filters.state);
  if (state.success && state.data) query.state = state.data;
  const algorithm = listShape.algorithm.safeParse(filters.algorithm);
  if (algorithm.success && algorithm.data) query.algorithm = algorithm.data;
  const type = listShape.type.safeParse(filters.type);
  if (type.success && type.data) query.type = type.data;
  const usage = listShape.usage.safeParse(filters.usage);
  if (usage.success && usage.data) query.usage = usage.data;
  return query;
}

// ---------------------------------------------------------------- paths

/** The key pages serve the main console and the KMS sub-console; links stay in the area they came from. */
export type KeyArea = 'console' | 'kms';

/** The route pattern of a page key, from the contract's menu model (the one table of menu paths). */
function pathOfPage(key: PageKey, nodes: readonly MenuNode[] = menuModel): string | undefined {
  for (const node of nodes) {
    if (node.component === key) return node.path;
    const inner = pathOfPage(key, node.children ?? []);
    if (inner) return inner;
  }
  return undefined;
}

function requiredPath(key: PageKey): string {
  const path = pathOfPage(key);
  if (!path) throw new Error(`No menu path for page '${key}'`);
  return path;
}

const keyPaths = {
  console: { list: requiredPath('console/key/index'), detail: requiredPath('console/key/detail') },
  kms: { list: requiredPath('kms/key/index'), detail: requiredPath('kms/key/detail') },
};

export function keyAreaOf(pathname: string): KeyArea {
  return pathname === '/kms' || pathname.startsWith('/kms/') ? 'kms' : 'console';
}

export function keyListPath(area: KeyArea): string {
  return keyPaths[area].list;
}

export function keyDetailPath(area: KeyArea, id: string): string {
  return generatePath(keyPaths[area].detail, { id });
}
