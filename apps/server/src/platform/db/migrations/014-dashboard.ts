import { sql, type Kysely } from 'kysely';

/**
 * The dashboard (modules/dashboard): cryptographic operations counted per minute, domain,
 * class and node (each node adds its own counts, flushed from memory every few seconds), the
 * cluster's nodes as each reports itself, and an index for the keys due for rotation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('op_counter')
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('op_counter_pk', ['minute', 'domain_id', 'class', 'node'])
    .execute();
  // A domain's chart reads its own range of minutes.
  await db.schema
    .createIndex('op_counter_domain_idx')
    .on('op_counter')
    .columns(['domain_id', 'minute'])
    .execute();
  await db.schema
    .createTable('cluster_node')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .execute();
  // Keys in use with a deactivation date only: the rotation figure reads a small range of it.
  await sql`create index kms_key_rotation_idx on kms_key (deactivation_date) where state = 'active' and deactivation_date is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('kms_key_rotation_idx').execute();
  await db.schema.dropTable('cluster_node').execute();
  await db.schema.dropTable('op_counter').execute();
}
