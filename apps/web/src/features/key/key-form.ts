import {
  algorithmInfo,
  PUBLIC_IMPORT_FORMATS,
  type AlgorithmId,
  type ImportFormat,
  type UsageName,
  type UsageProfileName,
} from '@ksp/contracts';
import type { CreateKeyBody, ImportKeyBody, KeyRow, UpdateKeyBody } from '../../api/key';
import { checkUsage, initialUsage } from './key-algorithms';
import { normalizeBase64 } from './key-content';

/** The key forms' values (labels, TDE attributes) and the bodies they send to the server. */
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

/** TDE (CTE) attributes apply to AES keys only (docs/modules.md#tde-key-attributes). */
export function supportsCte(id: AlgorithmId): boolean {
  return algorithmInfo(id).family === 'AES';
}

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
  /** Import only: the key material, Base64 (PEM text with the `pem` format). */
  content?: string | undefined;
  /** Import only: how `content` is encoded (`importFormats` of the algorithm; the first by default). */
  format?: ImportFormat | undefined;
  /** Import only, with `seed` or `expanded`: the public key the private one must derive, Base64. */
  publicKey?: string | undefined;
}

/** Whether an import makes a public key alone: an SPKI or standard public encoding, or a PEM PUBLIC KEY. */
export function importsPublicKey(format: ImportFormat | undefined, content: string | undefined): boolean {
  if (!format) return false;
  if (format === 'pem') return /-----BEGIN PUBLIC KEY-----/.test(content ?? '');
  return PUBLIC_IMPORT_FORMATS.includes(format);
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
  const { format } = values;
  const publicKey = normalizeBase64(values.publicKey ?? '');
  return {
    ...buildCreateBody(values),
    ...(format ? { format } : {}),
    content: format === 'pem' ? (values.content ?? '').trim() : normalizeBase64(values.content ?? ''),
    ...(publicKey && (format === 'seed' || format === 'expanded') ? { public_key: publicKey } : {}),
  };
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
