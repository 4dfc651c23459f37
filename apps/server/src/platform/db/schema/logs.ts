import type { Generated } from 'kysely';

/** Audit records and their chains, syslog forwarding, alarms, and the records agents upload. */
export interface LogTables {
  audit_log: AuditTable;
  audit_chain: AuditChainTable;
  syslog_server: SyslogServerTable;
  syslog_position: SyslogPositionTable;
  alarm_rule: AlarmRuleTable;
  alarm: AlarmTable;
  client_log: ClientLogTable;
  client_log_jti: ClientLogJtiTable;
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
