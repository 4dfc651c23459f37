import {
  algorithmInfo,
  stateLabel,
  usageWords,
  type AlgorithmId,
  type CteAttributes,
  type KeyState,
} from '@ksp/contracts';
import type { z } from 'zod';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';

/** TDE (CTE) attributes as stored in `kms_key.cte` (JSON). */
export type Cte = z.output<typeof CteAttributes>;

/** A stored key and its current version, as the contract's `KeyRow`. */
export function toKeyRow(row: KeyTable, latest: Pick<KeyVersionTable, 'kcv' | 'fingerprint'> | undefined) {
  const info = algorithmInfo(row.algorithm as AlgorithmId);
  const state = row.state as KeyState;
  return {
    id: row.id,
    name: row.name,
    algorithm: row.algorithm as AlgorithmId,
    family: info.family,
    object_type: row.object_type,
    size_bits: info.sizeBits,
    version: row.current_version,
    owner: row.owner_name,
    state,
    state_label: stateLabel(state),
    usage_mask: row.usage_mask,
    usages: usageWords(row.usage_mask),
    exportable: row.exportable === 1,
    deletable: row.deletable === 1,
    linked_key_id: row.linked_key_id,
    pqc_parameter_set: info.pqc?.parameterSet ?? null,
    security_level: info.pqc?.category ?? null,
    kmip_total: row.kmip_total,
    operations: row.operations,
    description: row.description,
    labels: JSON.parse(row.labels) as Record<string, string>,
    cte: row.cte ? (JSON.parse(row.cte) as Cte) : null,
    kcv: latest?.kcv ?? null,
    fingerprint: latest?.fingerprint ?? null,
    activation_date: row.activation_date,
    deactivation_date: row.deactivation_date,
    revocation_reason: row.revocation_reason,
    revocation_message: row.revocation_message,
    destroyed_at: row.destroyed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
