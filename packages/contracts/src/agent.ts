/**
 * What KSP hands a TDE or RDM agent: its configuration document (guard points, the policies
 * that govern them, the keys those policies apply, its profile) and the shape of a compiled
 * policy. The server composes it (modules/tde-*), the config channel delivers it
 * (modules/client), the reference agent (tools/ksp-agent) enforces it. docs/modules.md#clients-and-agents.
 */

/** Security rule effects, in the order an agent applies them (docs/modules.md#policies). */
export const policyEffects = ['permit', 'deny', 'audit', 'applykey'] as const;
export type PolicyEffect = (typeof policyEffects)[number];

/** Security rule actions: the coarse ones (fine-grained file actions may follow). */
export const policyActions = ['read', 'write', 'all_ops', 'key_op'] as const;
export type PolicyAction = (typeof policyActions)[number];

/** One entry of a user set: any subset of the fields; an entry matches when all its fields do. */
export interface AgentUserEntry {
  uname?: string;
  uid?: number;
  gname?: string;
  gid?: number;
}

/** One entry of a process set: the executable's directory and/or file name, optional hashes. */
export interface AgentProcessEntry {
  directory?: string;
  file?: string;
  /** Lowercase hex SHA-256 of the executables allowed (a signature set's hashes); empty: any. */
  sha256?: string[];
}

/** One entry of a resource set: a directory (relative to the guard point) and optional file. */
export interface AgentResourceEntry {
  /** Path relative to the guard point, "/" for the guard point itself. */
  directory: string;
  /** File name or glob (`*` within one path segment); empty or absent: every file. */
  file?: string;
  include_subfolders: boolean;
}

/** An ordered security rule: every set present must match; absent sets match anything. */
export interface AgentSecurityRule {
  order: number;
  users?: AgentUserEntry[];
  processes?: AgentProcessEntry[];
  resources?: AgentResourceEntry[];
  exclude_users?: boolean;
  exclude_processes?: boolean;
  exclude_resources?: boolean;
  actions: PolicyAction[];
  effects: PolicyEffect[];
}

/** Which key encrypts which files of a guard point (first matching rule wins). */
export interface AgentKeyRule {
  order: number;
  resources?: AgentResourceEntry[];
  /** A key of `AgentConfig.keys`, or null for "clear_key" (files stay in clear). */
  key_id: string | null;
}

/** A policy compiled for an agent: the sets are inlined, the rules in order. */
export interface AgentPolicy {
  id: string;
  name: string;
  /** standard: TDE encryption and access; rdm: anti-ransomware (no key rules). */
  type: 'standard' | 'rdm';
  /** Learn mode ("never deny"): a deny is audited but the access is permitted. */
  learn_mode: boolean;
  /** A monotonically increasing number of the policy's edits. */
  revision: number;
  security_rules: AgentSecurityRule[];
  key_rules: AgentKeyRule[];
  /** RDM policies only. */
  rdm?: {
    mode: 'audit' | 'block';
    trusted_processes: AgentProcessEntry[];
    /** A process that rewrites at least `files` files within `window_s` seconds is suspicious. */
    threshold: { files: number; window_s: number };
  };
}

/**
 * A key the agent needs, wrapped to the public key of the agent's own client certificate
 * (never in clear on the wire):
 * - RSA certificate: `alg` "RSA-OAEP-256", `wrapped` = RSA-OAEP (SHA-256, MGF1-SHA-256) of the
 *   key bytes;
 * - EC P-256 certificate: `alg` "ECDH-ES+A256GCM": an ephemeral P-256 key (`epk`, SPKI DER,
 *   base64), the shared secret through HKDF-SHA-256 (salt empty, info "ksp-agent-key-wrap-v1")
 *   to 32 bytes, AES-256-GCM with `iv` (12 bytes) over the key bytes, `wrapped` the ciphertext
 *   and `tag` the 16-byte tag, AAD = `<key id>:<version>` in UTF-8.
 */
export interface AgentKey {
  id: string;
  name: string;
  version: number;
  /** Always AES-256 (TDE keys are AES only). */
  algorithm: 'AES-256';
  alg: 'RSA-OAEP-256' | 'ECDH-ES+A256GCM';
  wrapped: string;
  epk?: string;
  iv?: string;
  tag?: string;
}

export interface AgentGuardPoint {
  id: string;
  /** Absolute path on the client host. */
  path: string;
  /** directory_auto | directory_manual | rwp (ransomware protection only, no policy). */
  type: string;
  enabled: boolean;
  /** Where it comes from: the client itself or one of its groups. */
  origin: { kind: 'client' } | { kind: 'group'; id: string; name: string };
  /** Null for rwp guard points. */
  policy: AgentPolicy | null;
}

/**
 * A secret of the profile (a syslog TLS client private key) for this agent only: a fresh
 * AES-256 content key wrapped to the agent's certificate exactly as an `AgentKey` (its `id` and
 * `version` name the secret: `syslog:<index>`, 1), then AES-256-GCM over the secret's UTF-8
 * bytes with `iv` (12 bytes), `tag` (16 bytes) and AAD = `cek.id`. Never in clear on the wire.
 */
export interface AgentSealedSecret {
  cek: AgentKey;
  iv: string;
  tag: string;
  data: string;
}

/** A syslog server the agent sends its log events to (profile `syslog_settings.servers`). */
export interface AgentSyslogServer {
  /** Host name or IP address. */
  name: string;
  port: number;
  protocol: 'TCP' | 'UDP' | 'TLS';
  message_format: 'CEF' | 'LEEF' | 'RFC5424' | 'PLAIN';
  /** TLS: the CA certificate(s) the server's certificate must chain to (PEM). */
  cacertificate?: string;
  /** TLS: the client certificate (PEM) with `privatekey`. */
  certificate?: string;
  privatekey?: AgentSealedSecret;
}

/** LDT quality of service (profile `ldt_qos`). */
export interface AgentLdtQos {
  schedule: 'CUSTOM' | 'CUSTOM_WITH_OVERWRITE' | 'ANY_TIME' | 'WEEKNIGHTS' | 'WEEKENDS';
  /** CUSTOM*: the windows during which LDT may rekey (weekdays MONDAY…SUNDAY, times HH:MM). */
  windows: { start_weekday: string; start_time: string; end_weekday: string; end_time: string }[];
  /** MB/s (0: no limit), or null when `cpu_percent` limits instead. */
  rekey_rate_mbps: number | null;
  cpu_percent: number | null;
  status_check_rate_s: number;
}

/** The client profile as the agent applies it (docs/modules.md#client-profiles; a subset). */
export interface AgentProfile {
  name: string;
  log_threshold: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  upload_enabled: boolean;
  /** Seconds between two log uploads at most. */
  upload_max_interval_s: number;
  /** rwp_operation: permit = audit only, deny = block the process. */
  rwp_operation: 'permit' | 'deny';
  rwp_trusted_processes: AgentProcessEntry[];
  /** Syslog: `enabled` is `client_logging_configuration.syslog_enabled`; absent: no syslog. */
  syslog?: {
    enabled: boolean;
    local: boolean;
    threshold: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
    servers: AgentSyslogServer[];
  };
  /** Absent: no LDT QoS limits. */
  ldt_qos?: AgentLdtQos;
}

/**
 * An authorised binary (CTE "auth-binaries"): a process running `filename` (and, when `sha256`
 * is listed, one of those hashes) may authenticate users; the user set of a policy then follows
 * the user it authenticated rather than the account it runs as.
 */
export interface AgentAuthBinary {
  filename: string;
  privilege: 'authenticator' | 'authenticator_euid' | 'authenticator_uid';
  /** Lowercase hex SHA-256 of the allowed executables (the signature set's); absent: any. */
  sha256?: string[];
  origin: { kind: 'client' } | { kind: 'group'; id: string; name: string };
}

/** The whole configuration of one agent; `version` grows with every change that reaches it. */
export interface AgentConfig {
  client_id: string;
  version: number;
  profile: AgentProfile | null;
  guard_points: AgentGuardPoint[];
  keys: AgentKey[];
  /** The client's authorised binaries, then its groups' (absent from older servers: none). */
  auth_binaries?: AgentAuthBinary[];
  /** True: the agent refuses local changes of its own configuration (absent: false). */
  client_locked?: boolean;
}
