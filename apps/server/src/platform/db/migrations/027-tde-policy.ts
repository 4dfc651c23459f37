import type { Kysely } from 'kysely';

/**
 * TDE / RDM policies (modules/tde-policy, docs/modules.md#tde-and-rdm-policies): policy elements
 * (resource, user, process and signature sets), policies with their ordered rules, client
 * profiles, and which element each policy, set or profile refers to (deletes of a referenced
 * element are refused). Entries, rules and settings are JSON text; names are unique per
 * domain and kind (elements), domain and type (policies), domain (profiles).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tde_policy_element')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('entries', 'text', (c) => c.notNull())
    .addColumn('source_list', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_policy_element_name_uq', ['domain_id', 'kind', 'name'])
    .execute();
  await db.schema
    .createTable('tde_policy')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('learn_mode', 'integer', (c) => c.notNull())
    .addColumn('restrict_update', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('security_rules', 'text', (c) => c.notNull())
    .addColumn('key_rules', 'text', (c) => c.notNull())
    .addColumn('rdm', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_policy_name_uq', ['domain_id', 'type', 'name'])
    .execute();
  await db.schema
    .createTable('tde_profile')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_profile_name_uq', ['domain_id', 'name'])
    .execute();
  // from_kind: policy | element | profile; from_id its id. Rebuilt at each save of the referrer.
  await db.schema
    .createTable('tde_element_ref')
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('from_kind', 'text', (c) => c.notNull())
    .addColumn('from_id', 'text', (c) => c.notNull())
    // No cascade: an element something refers to cannot be deleted, whatever the race.
    .addColumn('element_id', 'text', (c) => c.notNull().references('tde_policy_element.id'))
    .addPrimaryKeyConstraint('tde_element_ref_pk', ['from_id', 'element_id'])
    .execute();
  await db.schema
    .createIndex('tde_element_ref_element_idx')
    .on('tde_element_ref')
    .column('element_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tde_element_ref').execute();
  await db.schema.dropTable('tde_profile').execute();
  await db.schema.dropTable('tde_policy').execute();
  await db.schema.dropTable('tde_policy_element').execute();
}
