/** Keys, their versions and tallies, credentials, and the operations KADP clients made. */
export interface KeyTables {
  kms_key: KeyTable;
  kms_key_version: KeyVersionTable;
  kms_key_tally: KeyTallyTable;
  credential: CredentialTable;
  credential_version: CredentialVersionTable;
  kadp_operation: KadpOperationTable;
}

export interface KeyTable {
  id: string;
  domain_id: string;
  name: string;
  algorithm: string;
  object_type: 'symmetric' | 'private' | 'public';
  usage_mask: number;
  state: string;
  current_version: number;
  owner_id: string | null;
  owner_name: string;
  exportable: number;
  deletable: number;
  linked_key_id: string | null;
  description: string;
  labels: string;
  cte: string | null;
  kmip_total: number;
  operations: number;
  activation_date: string | null;
  deactivation_date: string | null;
  revocation_reason: string | null;
  revocation_message: string | null;
  destroyed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface KeyVersionTable {
  key_id: string;
  version: number;
  material_wrapped: string | null;
  public_key: string | null;
  kcv: string | null;
  fingerprint: string | null;
  created_at: string;
}

/** Keys per domain, state, algorithm, object type and month; kept by triggers on kms_key (migration 007). */
export interface KeyTallyTable {
  domain_id: string;
  state: string;
  algorithm: string;
  object_type: string;
  /** `YYYY-MM` of the keys' created_at. */
  month: string;
  keys: number;
}

/** A credential's metadata (migration 021); its value lives in `credential_version`. */
export interface CredentialTable {
  id: string;
  domain_id: string;
  name: string;
  description: string;
  /** JSON array of strings. */
  tags: string;
  type: string;
  server_id: string | null;
  expires_at: string | null;
  rotation_days: number | null;
  current_version: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One version of a credential's value (migration 021), sealed under the domain KEK. */
export interface CredentialVersionTable {
  credential_id: string;
  version: number;
  /** AES-256-GCM under the domain KEK, additional data `ksp/credential/<id>/<version>`. */
  value_sealed: string;
  created_by: string;
  created_at: string;
}

/** An operation a KADP client made with its client identity (migration 030, modules/kadp-ops). */
export interface KadpOperationTable {
  id: string;
  domain_id: string;
  client_id: string;
  at: string;
  /** encrypt | decrypt */
  operation: string;
  key_id: string;
  /** The key's name at the time ('-' when the id named no key of the domain). */
  key_name: string;
  /** success | failure */
  result: string;
  /** The refusal's message key; '' on success. */
  reason: string;
}
