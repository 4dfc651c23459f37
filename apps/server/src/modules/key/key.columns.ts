import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';

/** The columns of `kms_key`, in the order the journal writes them. */
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

/** The columns of `kms_key_version`. */
export const keyVersionColumns = [
  'key_id',
  'version',
  'material_wrapped',
  'public_key',
  'kcv',
  'fingerprint',
  'created_at',
] as const satisfies (keyof KeyVersionTable)[];

/** The table's columns its list leaves out: none, or this file does not compile. */
type Unlisted<Table, List extends readonly PropertyKey[]> = Exclude<keyof Table, List[number]>;
export const everyKeyColumnListed: [
  Unlisted<KeyTable, typeof keyColumns>,
  Unlisted<KeyVersionTable, typeof keyVersionColumns>,
] extends [never, never]
  ? true
  : never = true;
