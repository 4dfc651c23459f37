/** The SMS sub-console: SSH servers, password rotations and web terminal sessions. */
export interface SshTables {
  ssh_server: SshServerTable;
  ssh_server_rotation: SshServerRotationTable;
  ssh_session: SshSessionTable;
  ssh_session_chunk: SshSessionChunkTable;
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
