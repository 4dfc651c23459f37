import type { Kysely } from 'kysely';

/**
 * The operations KADP clients made through the crypto API with their client identity
 * (modules/kadp-ops): one row per operation, answered or refused, shown on the client's detail
 * page. No data, key material or secret: the operation, the key and the result only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kadp_operation')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('client.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('key_name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('kadp_operation_client_at')
    .on('kadp_operation')
    .columns(['client_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('kadp_operation').execute();
}
