import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Client records (modules/client-log): what agents upload. `seq` is the order of receipt and
 * the record's sequence id for syslog (`syslog_position` chain `client`); inserts are
 * serialized so that seq order is commit order (client-log.store.ts). `client_log_jti` is the
 * replay store of upload tokens, shared by every node.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('client_log')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('ca_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_cn', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('client_os', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('agent_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('effect', 'text', (c) => c.notNull())
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('guard_point', 'text', (c) => c.notNull())
    .addColumn('os_user', 'text', (c) => c.notNull())
    .addColumn('process', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  // The list is newest first by (received_at, seq), narrowed by domain and the usual filters.
  const indexes: [string, string[]][] = [
    ['client_log_time_idx', ['received_at', 'seq']],
    ['client_log_domain_time_idx', ['domain_id', 'received_at', 'seq']],
    ['client_log_effect_time_idx', ['effect', 'received_at']],
    ['client_log_level_time_idx', ['level', 'received_at']],
    ['client_log_action_time_idx', ['action', 'received_at']],
    ['client_log_client_time_idx', ['client_name', 'received_at']],
    ['client_log_user_time_idx', ['os_user', 'received_at']],
    ['client_log_ip_time_idx', ['client_ip', 'received_at']],
  ];
  for (const [name, columns] of indexes)
    await db.schema.createIndex(name).on('client_log').columns(columns).execute();
  await db.schema
    .createTable('client_log_jti')
    .addColumn('client_key', 'text', (c) => c.notNull())
    .addColumn('jti', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('client_log_jti_pk', ['client_key', 'jti'])
    .execute();
  await db.schema
    .createIndex('client_log_jti_expiry_idx')
    .on('client_log_jti')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('client_log_jti').execute();
  await db.schema.dropTable('client_log').execute();
}
