/** Agents (TDE, RDM, KADP clients): clients, groups, guard points, binaries, policies and profiles. */
export interface ClientTables {
  client: ClientTable;
  client_config_epoch: ClientConfigEpochTable;
  tde_client_group: TdeClientGroupTable;
  tde_client_group_member: TdeClientGroupMemberTable;
  tde_guard_point: TdeGuardPointTable;
  tde_auth_binary: TdeAuthBinaryTable;
  tde_policy_element: TdePolicyElementTable;
  tde_policy: TdePolicyTable;
  tde_profile: TdeProfileTable;
  tde_element_ref: TdeElementRefTable;
  tde_db_client: TdeDbClientTable;
  tde_db_key: TdeDbKeyTable;
}

/** A client (migration 024, modules/client). */
export interface ClientTable {
  id: string;
  domain_id: string;
  name: string;
  /** tde | rdm | kadp | kmip */
  type: string;
  os: string;
  agent_version: string;
  mac: string;
  host: string;
  /** active | revoked | deleting (delete asked, agent not yet acknowledged) | deleted */
  state: string;
  profile: string | null;
  /** JSON array of client group ids. */
  groups: string;
  token_id: string | null;
  token_name: string;
  cert_validity_days: number;
  /** The certificate (cert_certificate row), its serial and PEM (public). */
  cert_id: string;
  cert_serial: string;
  cert_pem: string;
  cert_not_before: string;
  cert_not_after: string;
  cert_ca_name: string;
  /** The timestamp (ms) of the agent's last accepted signed call: a later call must be newer. */
  last_request_ms: number | string;
  last_seen_at: string;
  registered_at: string;
  updated_at: string;
  /** 0: the agent's signed calls are refused (migration 028, modules/tde-client). */
  communication_enabled: number;
  /** 1: the agent refuses local changes of its own configuration (migration 029). */
  client_locked: number;
  /** A KMIP client's role (migration 036); null for other types, or a KMIP client given none yet. */
  role_id: string | null;
}

/** A policy element (migration 027): resource, user, process or signature set; `entries` JSON. */
export interface TdePolicyElementTable {
  id: string;
  domain_id: string;
  kind: string;
  name: string;
  description: string;
  entries: string;
  /** JSON array of paths (signature sets only; "[]" otherwise). */
  source_list: string;
  created_at: string;
  updated_at: string;
}

/** A TDE or RDM policy (migration 027); rules and RDM settings are JSON. */
export interface TdePolicyTable {
  id: string;
  domain_id: string;
  type: string;
  name: string;
  description: string;
  learn_mode: number;
  restrict_update: number;
  revision: number;
  security_rules: string;
  key_rules: string;
  rdm: string | null;
  created_at: string;
  updated_at: string;
}

/** A client profile (migration 027); `settings` JSON. */
export interface TdeProfileTable {
  id: string;
  domain_id: string;
  name: string;
  description: string;
  settings: string;
  created_at: string;
  updated_at: string;
}

/** Which element a policy, set or profile refers to (migration 027). */
export interface TdeElementRefTable {
  domain_id: string;
  from_kind: string;
  from_id: string;
  element_id: string;
}

/** The configuration epoch of a domain's agents (migration 025, platform/agent-config.ts). */
export interface ClientConfigEpochTable {
  domain_id: string;
  /** bigint: PostgreSQL answers it as a string. */
  seq: number | string;
  updated_at: string;
}

/** A TDE client group (migration 028, modules/tde-client). */
export interface TdeClientGroupTable {
  id: string;
  domain_id: string;
  name: string;
  description: string;
  /** The client profile its members receive unless they name their own; null: the default. */
  profile: string | null;
  created_at: string;
  updated_at: string;
}

/** A client's membership of a group (migration 028); `client.groups` mirrors it. */
export interface TdeClientGroupMemberTable {
  group_id: string;
  client_id: string;
  domain_id: string;
  added_at: string;
}

/** A guard point on a client or a group (migration 028): exactly one of client_id, group_id. */
export interface TdeGuardPointTable {
  id: string;
  domain_id: string;
  client_id: string | null;
  group_id: string | null;
  /** Absolute path on the client host. */
  path: string;
  /** directory_auto | directory_manual | rwp */
  type: string;
  /** Null for rwp guard points. */
  policy_id: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

/** An authorised binary of a client or a group (migration 029): exactly one of client_id, group_id. */
export interface TdeAuthBinaryTable {
  id: string;
  domain_id: string;
  client_id: string | null;
  group_id: string | null;
  /** Absolute path of the executable on the client host. */
  filename: string;
  /** authenticator | authenticator_euid | authenticator_uid */
  privilege: string;
  signature_set_id: string | null;
  position: number;
  created_at: string;
}

/** A TDE database client (migration 037, modules/tde-database). */
export interface TdeDbClientTable {
  id: string;
  domain_id: string;
  name: string;
  description: string;
  enabled: number;
  /** JSON array of addresses and CIDR ranges; empty: any. */
  ip_whitelist: string;
  /** SHA-256 (hex) of the access token; null: revoked. */
  token_hash: string | null;
  token_hint: string | null;
  token_issued_at: string | null;
  last_read_at: string | null;
  last_read_ip: string;
  created_at: string;
  updated_at: string;
}

/** A key a database client may read, under the database's key id (migration 037). */
export interface TdeDbKeyTable {
  client_id: string;
  db_key_id: number | string;
  domain_id: string;
  key_id: string;
  reads: number | string;
  last_read_at: string | null;
  last_version: number | null;
  granted_at: string;
}
