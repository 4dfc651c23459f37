import type { Generated } from 'kysely';

/**
 * Table types. Times are ISO 8601 UTC strings (sortable as text on both engines);
 * booleans are 0/1 integers; lists and objects are JSON text. Only SQL that runs on
 * SQLite and PostgreSQL alike is written against these tables.
 */
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

export interface DomainTable {
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  /** The domain KEK wrapped by the root key (AES-256-GCM, the domain id as AAD), base64. */
  kek_wrapped: string;
  created_at: string;
}

export interface UserTable {
  id: string;
  username: string;
  email: string;
  phone: string;
  password_hash: string | null;
  directory: string | null;
  must_change_password: number;
  password_changed_at: string | null;
  last_login_at: string | null;
  login_count: number;
  last_failed_login_at: string | null;
  failed_login_count: number;
  locked_until: string | null;
  ip_whitelist: string;
  app_secret_hash: string | null;
  /** The role an application token carries (null: the user's own roles). */
  app_role_id: string | null;
  ukey_serial: string | null;
  ukey_cert: string | null;
  created_at: string;
  updated_at: string;
}

export interface RoleTable {
  id: string;
  name: string;
  description: string;
  type: 'built-in' | 'custom';
  permissions: string;
  /** The domain a custom role belongs to; null for built-in roles (seen in every domain). */
  domain_id: string | null;
  created_at: string;
}

export interface UserRoleTable {
  user_id: string;
  role_id: string;
}

export interface UserDomainTable {
  user_id: string;
  domain_id: string;
}

export interface SessionTable {
  id: string;
  token_hash: string;
  user_id: string;
  domain_id: string;
  login_at: string;
  last_seen_at: string;
  source_ip: string;
  /** 'console' (a console session), a sub-console ('kadp', 'sms'), or 'app' (app-login). */
  scope: string;
  /** A sub-console token's console session (migration 031): it ends with that session. */
  parent_id?: string | null;
}

export interface RegistrationTokenTable {
  id: string;
  domain_id: string;
  name: string;
  usage: string;
  secret_hash: string;
  /** '-' for forever, else ISO 8601. */
  expires_at: string;
  cert_validity_days: number;
  capacity: number;
  used: number;
  created_at: string;
  updated_at: string;
}

export interface LdapConnectionTable {
  id: string;
  name: string;
  url: string;
  bind_dn: string;
  /** Wrapped by the root domain's KEK (AES-256-GCM, the connection id as AAD). */
  bind_password_wrapped: string | null;
  user_base_dn: string;
  username_attribute: string;
  user_dn_attribute: string;
  unique_id_attribute: string;
  user_filter: string;
  group_base_dn: string;
  group_filter: string;
  group_id_attribute: string;
  group_member_attribute: string;
  ca_certificate: string;
  verify_certificate: number;
  group_roles: string;
  created_at: string;
  updated_at: string;
}

export interface MfaPendingTable {
  user_id: string;
  password_ok_at: string;
  challenge: string | null;
  challenge_expires_at: string | null;
  source_ip: string;
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

export interface AuditTable {
  id: string;
  at: string;
  user_id: string | null;
  username: string;
  domain_id: string | null;
  domain_name: string;
  action: string;
  target: string;
  result: 'success' | 'failure';
  source_ip: string;
  details: string;
  /** The object a record is about (`AuditEntry.objectId`: a key, say), for its trail; null otherwise. */
  object_id: string | null;
  /** Operations the record stands for (1 unless the journal merged identical operations). */
  count: number;
  /** INFO, WARNING (refusals and failures), ERROR, CRITICAL (alarms). */
  severity: string;
  /** The action's area: "key" of "key.create". */
  area: string;
  /** web (console session), api (other tokens), agent, kmip, scheduler (the server itself), cli (the ksp command on a node, e.g. a new HSM PIN). */
  source: string;
  /** Place in its domain's chain; null until sealed (modules/log/log.chain.ts). */
  chain_seq?: number | string | null;
  /** HMAC-SHA256 (hex) over the previous record's MAC, the place and the content. */
  chain_mac?: string | null;
}

/** A syslog receiver (migration 013); `client_key` is sealed under `key_domain`'s KEK. */
export interface SyslogServerTable {
  id: string;
  name: string;
  host: string;
  port: number;
  protocol: string;
  format: string;
  /** JSON array of streams. */
  streams: string;
  enabled: number;
  ca_cert: string | null;
  client_cert: string | null;
  client_key: string | null;
  key_domain: string | null;
  sent: number | string;
  /** Failed deliveries in a row (the backoff). */
  failures: number;
  last_sent_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
}

/** How far a receiver got in one audit chain. */
export interface SyslogPositionTable {
  server_id: string;
  chain: string;
  seq: number | string;
}

/** An alarm rule (migration 015): counts matching records within an interval, raises at a threshold. */
export interface AlarmRuleTable {
  id: string;
  domain_id: string;
  /** 1: made in the root domain, counts every domain's records. */
  all_domains: number;
  name: string;
  enabled: number;
  /** server | client */
  stream: string;
  /** An action, or an area prefix ending with "."; null: every action. */
  action: string | null;
  /** success/failure (server), permit/deny/audit (client); null: any. */
  result: string | null;
  /** Server records: the lowest severity counted; null: any. */
  min_severity: string | null;
  threshold: number;
  interval_seconds: number;
  /** WARNING | ERROR | CRITICAL */
  severity: string;
  last_raised_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One alarm a rule raised (migration 015); open until acknowledged. */
export interface AlarmTable {
  id: string;
  rule_id: string;
  rule_name: string;
  domain_id: string;
  stream: string;
  severity: string;
  /** open | acknowledged */
  state: string;
  raised_at: string;
  window_from: string;
  count: number;
  threshold: number;
  interval_seconds: number;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
}

/** One client record (migration 016): what an agent uploaded. */
export interface ClientLogTable {
  /** Order of receipt (autoincrement): the syslog sequence id. Generated on insert. */
  seq: Generated<number | string>;
  id: string;
  domain_id: string;
  /** The local CA that issued the agent's certificate. */
  ca_id: string;
  /** The agent's certificate serial (hex): its identity until the client table exists. */
  client_id: string;
  client_cn: string;
  client_name: string;
  client_os: string;
  client_ip: string;
  level: string;
  agent_at: string;
  received_at: string;
  action: string;
  /** permit, deny or audit. */
  effect: string;
  policy: string;
  guard_point: string;
  os_user: string;
  process: string;
  resource: string;
  /** JSON object, bounded. */
  details: string;
}

/** An upload token's id, kept until the token expires (the replay store). */
export interface ClientLogJtiTable {
  /** The agent: `<ca id>:<certificate serial>`. */
  client_key: string;
  jti: string;
  expires_at: string;
}

/** The head of one domain's audit chain ('' = the server's own records) and its anchor. */
export interface AuditChainTable {
  chain: string;
  seq: number | string;
  mac: string;
  anchor_seq: number | string;
  anchor_mac: string;
  updated_at: string;
}

export interface PasswordPolicyTable {
  id: string;
  min_length: number;
  max_length: number;
  min_lowercase: number;
  min_uppercase: number;
  min_digits: number;
  min_special: number;
  lockout_disabled: number;
  max_failed_attempts: number;
  expiry_days: number;
  min_change_days: number;
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

/** Who runs a job now: one node at a time, until the lease expires unless renewed. */
export interface JobLeaseTable {
  /** The job's name. */
  name: string;
  /** The node name holding the lease; '' when released. */
  holder: string;
  expires_at: string;
}

/** One run of a job: the history, and the checkpoint an interrupted run resumes from. */
export interface JobRunTable {
  id: string;
  job: string;
  /** The node that ran it (the last one, for a resumed run). */
  node: string;
  started_at: string;
  finished_at: string | null;
  state: 'running' | 'success' | 'failure';
  /** JSON the job saved as it went; a run left 'running' resumes from it. */
  checkpoint: string | null;
  /** The failure's message. */
  error: string | null;
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

/** A server of the SMS sub-console (migration 023): an SSH target and its rotation settings. */
export interface SshServerTable {
  id: string;
  domain_id: string;
  name: string;
  description: string;
  host: string;
  port: number;
  os: string;
  account: string;
  auth_type: string;
  /** Null once the linked credential was deleted. */
  credential_id: string | null;
  /** The pinned host key (`SHA256:<Base64>`); null until the user confirmed one. */
  host_key_fingerprint: string | null;
  host_key_type: string | null;
  /** 0 or 1. */
  rotation_enabled: number;
  rotation_days: number;
  rotation_hour: number;
  rotation_length: number;
  /** JSON `{lower, upper, digits, symbols}` (booleans). */
  rotation_charset: string;
  next_rotation_at: string | null;
  last_rotation_at: string | null;
  last_rotation_result: string | null;
  /** The start of the rotation running now, null when none runs. */
  rotating_since: string | null;
  /** JSON arrays: user names, role ids. */
  terminal_users: string;
  terminal_roles: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One rotation of a server's password (migration 023); `error` is a stored message. */
export interface SshServerRotationTable {
  id: string;
  server_id: string;
  at: string;
  trigger: string;
  by: string;
  result: string;
  version: number | null;
  error: string | null;
}

/** A server node of the cluster, as it last reported itself (migration 014). */
export interface ClusterNodeTable {
  name: string;
  version: string;
  started_at: string;
  last_seen: string;
}

/** A scheduled task of a domain (migration 020): a key rotation on a cron schedule. */
export interface SchedulerTaskTable {
  id: string;
  domain_id: string;
  domain_name: string;
  name: string;
  description: string;
  type: string;
  cron: string;
  /** JSON of the run-interval builder's choice, or null for a cron typed in. */
  interval: string | null;
  start_at: string | null;
  end_at: string | null;
  enabled: number;
  /** JSON of the key-rotation query. */
  query: string;
  next_run_at: string | null;
  last_run_at: string | null;
  last_result: string | null;
  last_error: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One run of a scheduled task (migration 020). */
export interface SchedulerRunTable {
  id: string;
  task_id: string;
  domain_id: string;
  task_name: string;
  trigger: string;
  state: string;
  requested_by: string;
  node: string | null;
  backup_id: string | null;
  matched: number;
  rotated: number;
  failed: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A key a run matched (migration 020): `pending`, then `rotated` with its new version, or `failed`. */
export interface SchedulerRunKeyTable {
  run_id: string;
  seq: number;
  key_id: string;
  key_name: string;
  result: string;
  version: number | null;
  error: string | null;
  at: string | null;
}

/** A backup key (migration 019): AES-256 material sealed under the root-derived backup-key wrapping key. */
export interface BackupKeyTable {
  id: string;
  name: string;
  scope: 'system' | 'domain';
  domain_id: string;
  domain_name: string;
  is_default: number;
  material_sealed: string;
  kcv: string;
  created_at: string;
  created_by: string;
}

/** A backup (migration 019): its archive is `<data dir>/backups/<id>.kspb`. */
export interface BackupTable {
  id: string;
  scope: 'system' | 'domain' | 'partial' | 'key_rotation';
  domain_id: string;
  domain_name: string;
  description: string;
  backup_key_id: string;
  /** JSON of the partial backup's filter (`{}` otherwise). */
  filters: string;
  status: 'backing_up' | 'completed' | 'failed';
  progress: number;
  restore_status: 'restoring' | 'restored' | 'failed' | null;
  restored_at: string | null;
  error: string | null;
  /** bigint: PostgreSQL answers it as a string. */
  size: number | string;
  sha256: string;
  /** JSON `{ table: rows }`. */
  counts: string;
  format_version: number;
  source_version: string;
  uploaded: number;
  /** 1: the archive also needs the secret the bound HSM sealed (header `hsm`). */
  tied_to_hsm: number;
  created_at: string;
  created_by: string;
  finished_at: string | null;
  /** The node whose backup directory holds the archive; null while queued (migration 022). */
  node: string | null;
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

/** A client (migration 024, modules/client). */
export interface ClientTable {
  id: string;
  domain_id: string;
  name: string;
  /** tde | rdm | kadp */
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

/** A web SSH terminal session (migration 026, modules/ssh-server). */
export interface SshSessionTable {
  id: string;
  domain_id: string;
  server_id: string;
  user_id: string;
  user_name: string;
  ip: string;
  cols: number;
  rows: number;
  started_at: string;
  alive_at: string;
  ended_at: string | null;
  end_reason: string | null;
  /** bigint: PostgreSQL answers them as strings. */
  bytes_in: number | string;
  bytes_out: number | string;
  recording_bytes: number | string;
  recording_truncated: number;
}

/** A sealed piece of a session's asciicast recording, in order. */
export interface SshSessionChunkTable {
  session_id: string;
  seq: number;
  data_sealed: string;
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

export interface Database {
  ssh_session: SshSessionTable;
  ssh_session_chunk: SshSessionChunkTable;
  tde_client_group: TdeClientGroupTable;
  tde_client_group_member: TdeClientGroupMemberTable;
  tde_guard_point: TdeGuardPointTable;
  tde_auth_binary: TdeAuthBinaryTable;
  client_config_epoch: ClientConfigEpochTable;
  tde_policy_element: TdePolicyElementTable;
  tde_policy: TdePolicyTable;
  tde_profile: TdeProfileTable;
  tde_element_ref: TdeElementRefTable;
  client: ClientTable;
  kadp_operation: KadpOperationTable;
  credential: CredentialTable;
  credential_version: CredentialVersionTable;
  ssh_server: SshServerTable;
  ssh_server_rotation: SshServerRotationTable;
  scheduler_task: SchedulerTaskTable;
  scheduler_run: SchedulerRunTable;
  scheduler_run_key: SchedulerRunKeyTable;
  backup_key: BackupKeyTable;
  backup: BackupTable;
  license_install: LicenseInstallTable;
  license: LicenseTable;
  license_quota: LicenseQuotaTable;
  hsm: HsmTable;
  system_state: SystemStateTable;
  domain: DomainTable;
  app_user: UserTable;
  role: RoleTable;
  user_role: UserRoleTable;
  user_domain: UserDomainTable;
  session: SessionTable;
  config: ConfigTable;
  audit_log: AuditTable;
  audit_chain: AuditChainTable;
  syslog_server: SyslogServerTable;
  syslog_position: SyslogPositionTable;
  alarm_rule: AlarmRuleTable;
  alarm: AlarmTable;
  client_log: ClientLogTable;
  client_log_jti: ClientLogJtiTable;
  password_policy: PasswordPolicyTable;
  quantum_source: QuantumSourceTable;
  registration_token: RegistrationTokenTable;
  ldap_connection: LdapConnectionTable;
  mfa_pending: MfaPendingTable;
  kms_key: KeyTable;
  kms_key_version: KeyVersionTable;
  kms_key_tally: KeyTallyTable;
  op_counter: OpCounterTable;
  cluster_node: ClusterNodeTable;
  job_lease: JobLeaseTable;
  job_run: JobRunTable;
  cert_ca: CertCaTable;
  cert_certificate: CertCertificateTable;
  cert_crl: CertCrlTable;
  cert_external: CertExternalTable;
}

/** A local CA (migration 009); `state` is pending or active (expired is read from not_after). */
export interface CertCaTable {
  id: string;
  domain_id: string;
  name: string;
  cn: string;
  subject: string;
  algorithm: string;
  key_bits: number;
  key_id: string;
  state: 'pending' | 'active';
  type: 'root' | 'intermediate' | null;
  parent_id: string | null;
  path_len: number | null;
  is_default: number;
  issuer: string | null;
  serial: string | null;
  not_before: string | null;
  not_after: string | null;
  fingerprint: string | null;
  /** SHA-1 key identifier of its public key, hexadecimal. */
  ski: string;
  cert_der: string | null;
  /** JSON array of the Base64 DER issuers above it (an externally signed CA). */
  chain_der: string;
  csr_der: string | null;
  created_at: string;
  updated_at: string;
}

export interface CertCertificateTable {
  id: string;
  domain_id: string;
  ca_id: string;
  name: string;
  cn: string;
  subject: string;
  issuer: string;
  purpose: string;
  usage: string;
  algorithm: string;
  key_bits: number;
  serial: string;
  not_before: string;
  not_after: string;
  fingerprint: string;
  cert_der: string;
  csr_der: string | null;
  key_id: string | null;
  exportable: number;
  source: string;
  /** JSON `{ dns, ips, emails }`. */
  san: string;
  /** JSON `{ key_usage, ext_key_usage }`. */
  key_usage: string;
  revocation_reason: string | null;
  revoked_at: string | null;
  /** Hidden from lists; a revoked certificate stays on its CA's CRL until it expires. */
  deleted_at: string | null;
  created_at: string;
}

export interface CertCrlTable {
  ca_id: string;
  number: number;
  this_update: string;
  next_update: string;
  entries: number;
  der: string;
  /** Set by a revocation: the next read rebuilds it. */
  stale: number;
}

export interface CertExternalTable {
  id: string;
  domain_id: string;
  name: string;
  subject: string;
  issuer: string;
  serial: string;
  fingerprint: string;
  algorithm: string;
  not_before: string;
  not_after: string;
  self_signed: number;
  cert_der: string;
  created_at: string;
}
