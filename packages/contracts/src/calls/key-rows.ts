import { z } from 'zod';
import { ALGORITHM_IDS, USAGE_BITS_TEXT, USAGE_WORDS } from '../algorithms.js';

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

/** The words naming usage bits: in key rows (`usages`) and in the key list's `usage` filter. */
export const UsageWordSchema = z.enum(USAGE_WORDS);
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
