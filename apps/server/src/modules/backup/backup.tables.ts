import type { Kysely, SelectQueryBuilder } from 'kysely';

/**
 * What a backup holds, table by table, parents first (restore inserts in this order and
 * deletes in the reverse one). `key` is the column rows are paged by (keyset); composite
 * keys page by offset over `order` (small tables).
 */
export interface TableSpec {
  table: string;
  key: string;
  order?: readonly string[];
}

export const SYSTEM_TABLES: readonly TableSpec[] = [
  { table: 'domain', key: 'id' },
  { table: 'config', key: 'id' },
  { table: 'password_policy', key: 'id' },
  { table: 'role', key: 'id' },
  { table: 'app_user', key: 'id' },
  { table: 'user_role', key: '', order: ['user_id', 'role_id'] },
  { table: 'user_domain', key: '', order: ['user_id', 'domain_id'] },
  { table: 'ldap_connection', key: 'id' },
  { table: 'registration_token', key: 'id' },
  { table: 'kms_key', key: 'id' },
  { table: 'kms_key_version', key: '' },
  { table: 'cert_ca', key: 'id' },
  { table: 'cert_crl', key: 'ca_id' },
  { table: 'cert_certificate', key: 'id' },
  { table: 'cert_external', key: 'id' },
  // Sealed under their domain's KEK, which the archive carries (credential values, as key material).
  { table: 'credential', key: 'id' },
  { table: 'credential_version', key: '', order: ['credential_id', 'version'] },
  // The scheduler's tasks, which it reads afresh each round (not their runs: a run in progress
  // is not resumed from a backup; runs of tasks the restore removed are dropped by the scheduler).
  { table: 'scheduler_task', key: 'id' },
];

/** Tables a domain, partial or key rotation backup may hold. */
export const DOMAIN_TABLES = new Set([
  'domain',
  'kms_key',
  'kms_key_version',
  'cert_ca',
  'cert_crl',
  'cert_certificate',
  'cert_external',
]);

/** Rows of any table, for the generic dump and restore. */
export type Row = Record<string, unknown>;
/** The database seen with table names chosen at run time (from the lists above). */
export type LooseSchema = Record<string, Row>;
export type LooseDb = Kysely<LooseSchema>;
/** Narrows a query of one table (the rows a backup holds). */
export type Narrow = <O>(
  q: SelectQueryBuilder<LooseSchema, string, O>,
) => SelectQueryBuilder<LooseSchema, string, O>;
