import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';

/** Every column of `kms_key`, in the order the journal writes them. */
export const keyColumns = [
  'id',
  'domain_id',
  'name',
  'algorithm',
  'object_type',
  'usage_mask',
  'state',
  'current_version',
  'owner_id',
  'owner_name',
  'exportable',
  'deletable',
  'linked_key_id',
  'description',
  'labels',
  'cte',
  'kmip_total',
  'operations',
  'activation_date',
  'deactivation_date',
  'revocation_reason',
  'revocation_message',
  'destroyed_at',
  'created_at',
  'updated_at',
] as const satisfies (keyof KeyTable)[];

/** Every column of `kms_key_version`. */
export const keyVersionColumns = [
  'key_id',
  'version',
  'material_wrapped',
  'public_key',
  'kcv',
  'fingerprint',
  'created_at',
] as const satisfies (keyof KeyVersionTable)[];
