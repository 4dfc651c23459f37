import type { Kysely } from 'kysely';

/**
 * Syslog receivers (modules/syslog) and each one's position in each audit chain: the sealed
 * records beyond it are its outbox, so nothing is lost while a receiver is down or KSP restarts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('syslog_server')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('streams', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('ca_cert', 'text')
    .addColumn('client_cert', 'text')
    .addColumn('client_key', 'text')
    .addColumn('key_domain', 'text')
    .addColumn('sent', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_sent_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('syslog_position')
    .addColumn('server_id', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('syslog_position_pk', ['server_id', 'chain'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('syslog_position').execute();
  await db.schema.dropTable('syslog_server').execute();
}
