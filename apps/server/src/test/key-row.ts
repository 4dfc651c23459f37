import type { KeyTable } from '../platform/db/schema.js';

/**
 * A key's row as a restore or another node writes it straight into `kms_key`: one version, no
 * link, labels, CTE settings or use counted yet, exportable no, deletable yes, dates unset and
 * updated when created; `row` gives what makes the key itself and may set any of the rest.
 */
export function storedKeyRow(
  row: Pick<
    KeyTable,
    | 'id'
    | 'domain_id'
    | 'name'
    | 'algorithm'
    | 'object_type'
    | 'usage_mask'
    | 'state'
    | 'owner_id'
    | 'owner_name'
    | 'created_at'
  > &
    Partial<KeyTable>,
): KeyTable {
  return {
    current_version: 1,
    exportable: 0,
    deletable: 1,
    linked_key_id: null,
    description: '',
    labels: '{}',
    cte: null,
    kmip_total: 0,
    operations: 0,
    activation_date: null,
    deactivation_date: null,
    revocation_reason: null,
    revocation_message: null,
    destroyed_at: null,
    updated_at: row.created_at,
    ...row,
  };
}
