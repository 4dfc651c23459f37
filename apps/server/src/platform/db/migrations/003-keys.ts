import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kms_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('usage_mask', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'text')
    .addColumn('owner_name', 'text', (c) => c.notNull())
    .addColumn('exportable', 'integer', (c) => c.notNull())
    .addColumn('deletable', 'integer', (c) => c.notNull())
    .addColumn('linked_key_id', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('labels', 'text', (c) => c.notNull())
    .addColumn('cte', 'text')
    .addColumn('kmip_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('operations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('activation_date', 'text')
    .addColumn('deactivation_date', 'text')
    .addColumn('revocation_reason', 'text')
    .addColumn('revocation_message', 'text')
    .addColumn('destroyed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('kms_key_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createIndex('kms_key_domain_idx')
    .on('kms_key')
    .columns(['domain_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('kms_key_version')
    .addColumn('key_id', 'text', (c) => c.notNull().references('kms_key.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    /** Wrapped by the domain KEK (AES-256-GCM, AAD "ksp/key/<id>/<version>"); null once destroyed. */
    .addColumn('material_wrapped', 'text')
    /** Public keys are not secret: SPKI DER (or the standard's bytes), Base64. */
    .addColumn('public_key', 'text')
    .addColumn('kcv', 'text')
    .addColumn('fingerprint', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('kms_key_version_pk', ['key_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('kms_key_version').ifExists().execute();
  await db.schema.dropTable('kms_key').ifExists().execute();
}
