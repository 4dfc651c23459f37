/** The installation: its state, settings, licence, root of trust, quantum source and cluster. */
export interface SystemTables {
  system_state: SystemStateTable;
  config: ConfigTable;
  quantum_source: QuantumSourceTable;
  license_install: LicenseInstallTable;
  license: LicenseTable;
  license_quota: LicenseQuotaTable;
  hsm: HsmTable;
  cluster_node: ClusterNodeTable;
  op_counter: OpCounterTable;
}

export interface SystemStateTable {
  id: string;
  initialized_at: string | null;
  activated_at: string | null;
  /** Root key wrapped by the seal key (AES-256-GCM), base64. */
  root_key_wrapped: string | null;
  root_kcv: string | null;
  /** Fingerprint of the seal key, to tell a wrong seal file from a missing one (null under an HSM). */
  seal_fingerprint: string | null;
  /** What wraps the root key (migration 018): 'seal-file' or 'pkcs11' (the `hsm` row). */
  root_provider: string;
}

export interface ConfigTable {
  id: string;
  key: string;
  value: string;
  is_public: number;
  built_in: number;
  read_only: number;
  description: string;
  updated_at: string;
}

/** The quantum entropy source's settings (one row, id 1). */
export interface QuantumSourceTable {
  id: number;
  enabled: number;
  source_type: string;
  endpoint: string;
  min_entropy: number;
  block_bytes: number;
  interval_seconds: number;
  updated_at: string;
}

/** Cryptographic operations counted by one node in one minute, domain and class (migration 014). */
export interface OpCounterTable {
  /** Minutes since the Unix epoch (UTC). */
  minute: number;
  domain_id: string;
  /** One of the contracts' `opClasses`. */
  class: string;
  node: string;
  count: number | string;
}

/** This installation's identity (migration 017, one row 'install'): its lock code derives from it. */
export interface LicenseInstallTable {
  id: string;
  install_id: string;
  created_at: string;
}

/** An activated licence (migration 017): the verified payload's fields and the text as pasted. */
export interface LicenseTable {
  id: string;
  license_id: string;
  customer: string;
  lock_code: string;
  bind_type: string;
  /** JSON object: feature → quantity. */
  features: string;
  not_before: string;
  not_after: string;
  issued_at: string;
  text: string;
  activated_at: string;
  activated_by: string;
}

/** A counted feature's quota lock row (migration 034): updated first by each creation's transaction. */
export interface LicenseQuotaTable {
  feature: string;
  claims: number | string;
}

/** The HSM root of trust (migration 018, one row 'hsm'): its PIN and client key only sealed. */
export interface HsmTable {
  id: string;
  library: string;
  slot_serial: string;
  token_label: string;
  key_label: string;
  /** The user PIN, AES-256-GCM under the local key of `<data dir>/hsm-pin.key`. */
  pin_sealed: string;
  /** Set while the root key is wrapped by the token (system_state.root_provider = 'pkcs11'). */
  bound_at: string | null;
  hsm_certificate: string | null;
  client_certificate: string | null;
  /** The client's private key (PEM), sealed under a key derived from the root key. */
  client_key_sealed: string | null;
  server_certificate: string | null;
  updated_at: string;
}

/** A server node of the cluster, as it last reported itself (migration 014). */
export interface ClusterNodeTable {
  name: string;
  version: string;
  started_at: string;
  last_seen: string;
}
