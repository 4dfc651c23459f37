import type { Kysely } from 'kysely';

/**
 * How many operations an audit record stands for. Identical successful cryptographic
 * operations committed together (same caller, address, key, version and operation) are
 * recorded once with their number (platform/db/journal.ts); every other record stands for one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('count').execute();
}
