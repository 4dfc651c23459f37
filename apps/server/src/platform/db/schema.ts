import type { AccessTables } from './schema/access.js';
import type { SystemTables } from './schema/system.js';
import type { KeyTables } from './schema/keys.js';
import type { LogTables } from './schema/logs.js';
import type { JobTables } from './schema/jobs.js';
import type { CertTables } from './schema/cert.js';
import type { ClientTables } from './schema/clients.js';
import type { SshTables } from './schema/ssh.js';

export type {
  DomainTable,
  UserTable,
  RoleTable,
  UserRoleTable,
  UserDomainTable,
  SessionTable,
  RegistrationTokenTable,
  LdapConnectionTable,
  MfaPendingTable,
  PasswordPolicyTable,
} from './schema/access.js';
export type {
  SystemStateTable,
  ConfigTable,
  QuantumSourceTable,
  OpCounterTable,
  LicenseInstallTable,
  LicenseTable,
  LicenseQuotaTable,
  HsmTable,
  ClusterNodeTable,
} from './schema/system.js';
export type {
  KeyTable,
  KeyVersionTable,
  KeyTallyTable,
  CredentialTable,
  CredentialVersionTable,
  KadpOperationTable,
} from './schema/keys.js';
export type {
  AuditTable,
  SyslogServerTable,
  SyslogPositionTable,
  AlarmRuleTable,
  AlarmTable,
  ClientLogTable,
  ClientLogJtiTable,
  AuditChainTable,
} from './schema/logs.js';
export type {
  JobLeaseTable,
  JobRunTable,
  SchedulerTaskTable,
  SchedulerRunTable,
  SchedulerRunKeyTable,
  BackupKeyTable,
  BackupTable,
} from './schema/jobs.js';
export type {
  CertCaTable,
  CertCertificateTable,
  CertCrlTable,
  CertExternalTable,
  ExternalKind,
} from './schema/cert.js';
export type {
  ClientTable,
  TdePolicyElementTable,
  TdePolicyTable,
  TdeProfileTable,
  TdeElementRefTable,
  ClientConfigEpochTable,
  TdeClientGroupTable,
  TdeClientGroupMemberTable,
  TdeGuardPointTable,
  TdeAuthBinaryTable,
  TdeDbClientTable,
  TdeDbKeyTable,
} from './schema/clients.js';
export type {
  SshServerTable,
  SshServerRotationTable,
  SshSessionTable,
  SshSessionChunkTable,
} from './schema/ssh.js';

/**
 * Table types. Times are ISO 8601 UTC strings (sortable as text on both engines);
 * booleans are 0/1 integers; lists and objects are JSON text. Only SQL that runs on
 * SQLite and PostgreSQL alike is written against these tables. Each file of `schema/` holds
 * one area's tables; this is the whole database Kysely is typed with.
 */
export interface Database
  extends AccessTables, SystemTables, KeyTables, LogTables, JobTables, CertTables, ClientTables, SshTables {}
