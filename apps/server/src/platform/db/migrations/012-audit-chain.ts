import type { Kysely } from 'kysely';

/**
 * Tamper evidence for the audit trail (modules/log/log.chain.ts): each record gets its place
 * in its domain's chain (`chain_seq`) and a MAC over the previous record's MAC and its own
 * content (`chain_mac`). `audit_chain` keeps each chain's head and the anchor retention left.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('chain_seq', 'bigint').execute();
  await db.schema.alterTable('audit_log').addColumn('chain_mac', 'text').execute();
  await db.schema
    .createIndex('audit_chain_idx')
    .on('audit_log')
    .columns(['domain_id', 'chain_seq'])
    .execute();
  await db.schema
    .createTable('audit_chain')
    .addColumn('chain', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('mac', 'text', (c) => c.notNull())
    .addColumn('anchor_seq', 'bigint', (c) => c.notNull())
    .addColumn('anchor_mac', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_chain').execute();
  await db.schema.dropIndex('audit_chain_idx').execute();
  await db.schema.alterTable('audit_log').dropColumn('chain_mac').execute();
  await db.schema.alterTable('audit_log').dropColumn('chain_seq').execute();
}
