import type { Kysely } from 'kysely';

/**
 * Backup keys and backups (modules/backup). A backup key's material is sealed under a key
 * derived from the root key (it outlives any domain's KEK, which a system restore replaces);
 * a backup's archive is a file in the data directory, this row its status and checksum.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('backup_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('material_sealed', 'text', (c) => c.notNull())
    .addColumn('kcv', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('backup_key_domain').on('backup_key').columns(['domain_id', 'scope']).execute();
  await db.schema
    .createTable('backup')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('backup_key_id', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('restore_status', 'text')
    .addColumn('restored_at', 'text')
    .addColumn('error', 'text')
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sha256', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('format_version', 'integer', (c) => c.notNull())
    .addColumn('source_version', 'text', (c) => c.notNull())
    .addColumn('uploaded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tied_to_hsm', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('backup_domain').on('backup').columns(['domain_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('backup').execute();
  await db.schema.dropTable('backup_key').execute();
}
