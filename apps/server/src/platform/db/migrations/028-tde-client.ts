import type { Kysely } from 'kysely';

/**
 * TDE / RDM clients (modules/tde-client): client groups, their members, and guard points on a
 * client or a group. `client.groups` (migration 024) stays the JSON list of a client's group
 * ids, kept in step with `tde_client_group_member` in the same transactions.
 * `client.communication_enabled`: 0 refuses the agent's signed calls (heartbeats).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Communication disabled: the agent's signed calls are refused (docs/modules.md#tde-and-rdm-clients).
  await db.schema
    .alterTable('client')
    .addColumn('communication_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('tde_client_group')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('profile', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_client_group_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createTable('tde_client_group_member')
    .addColumn('group_id', 'text', (c) => c.notNull().references('tde_client_group.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('client.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tde_client_group_member_pk', ['group_id', 'client_id'])
    .execute();
  await db.schema
    .createIndex('tde_client_group_member_client_idx')
    .on('tde_client_group_member')
    .column('client_id')
    .execute();
  await db.schema
    .createTable('tde_guard_point')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('client_id', 'text', (c) => c.references('client.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.references('tde_client_group.id'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_guard_point_client_path_uq', ['client_id', 'path'])
    .addUniqueConstraint('tde_guard_point_group_path_uq', ['group_id', 'path'])
    .execute();
  await db.schema
    .createIndex('tde_guard_point_policy_idx')
    .on('tde_guard_point')
    .columns(['domain_id', 'policy_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tde_guard_point').execute();
  await db.schema.dropTable('tde_client_group_member').execute();
  await db.schema.dropTable('tde_client_group').execute();
  await db.schema.alterTable('client').dropColumn('communication_enabled').execute();
}
