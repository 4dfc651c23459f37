import type { Kysely } from 'kysely';

/**
 * TDE authorised binaries and client lock (modules/tde-client, docs/modules.md#tde-and-rdm-clients):
 * `tde_auth_binary` holds the privilege–filename pairs of a client or a client group (exactly
 * one of client_id / group_id; a filename once per owner; `position` keeps the operator's
 * order). `client.client_locked`: 1 tells the agent to refuse local changes of its own
 * configuration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('client')
    .addColumn('client_locked', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('tde_auth_binary')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('client_id', 'text', (c) => c.references('client.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.references('tde_client_group.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('privilege', 'text', (c) => c.notNull())
    .addColumn('signature_set_id', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_auth_binary_client_file_uq', ['client_id', 'filename'])
    .addUniqueConstraint('tde_auth_binary_group_file_uq', ['group_id', 'filename'])
    .execute();
  await db.schema
    .createIndex('tde_auth_binary_domain_idx')
    .on('tde_auth_binary')
    .columns(['domain_id', 'signature_set_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tde_auth_binary').execute();
  await db.schema.alterTable('client').dropColumn('client_locked').execute();
}
