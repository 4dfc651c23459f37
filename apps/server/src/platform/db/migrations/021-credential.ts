import type { Kysely } from 'kysely';

/**
 * Credentials (modules/credential): metadata per credential, one row per version of its
 * value, sealed under the domain's KEK (never the plaintext).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credential')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('server_id', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('rotation_days', 'integer')
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('credential_domain_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createTable('credential_version')
    .addColumn('credential_id', 'text', (c) => c.notNull().references('credential.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('value_sealed', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('credential_version_pk', ['credential_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credential_version').execute();
  await db.schema.dropTable('credential').execute();
}
