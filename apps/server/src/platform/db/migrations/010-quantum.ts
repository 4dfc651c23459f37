import type { Kysely } from 'kysely';

/**
 * The quantum entropy source's settings (modules/quantum): one row. Its status, counters and
 * read position live in each node's memory, since each node reads and tests the source itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quantum_source')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('min_entropy', 'double precision', (c) => c.notNull())
    .addColumn('block_bytes', 'integer', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('quantum_source').execute();
}
