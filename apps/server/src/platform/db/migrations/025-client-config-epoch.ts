import type { Kysely } from 'kysely';

/**
 * The configuration epoch of each domain's agents (platform/agent-config.ts): every change
 * that alters what an agent of the domain receives (policy, policy element, guard point,
 * profile, group, key version) raises `seq` in the same transaction; the config channel of
 * every node watches it and answers its waiting agents.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('client_config_epoch')
    .addColumn('domain_id', 'text', (c) => c.primaryKey().references('domain.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('client_config_epoch').execute();
}
