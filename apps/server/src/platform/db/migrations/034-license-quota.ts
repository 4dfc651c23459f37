import type { Kysely } from 'kysely';

/**
 * The licence quota's lock rows (modules/license, `claim`): one per counted feature, made on
 * first use. A creation updates its feature's row first in the transaction that inserts the
 * new object, then counts what exists: on PostgreSQL the row lock makes concurrent creations
 * (on any node) count one after another, each seeing the others' committed rows; on SQLite
 * the update takes the database's write lock before the count. `claims` only counts checks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('license_quota')
    .addColumn('feature', 'text', (c) => c.primaryKey())
    .addColumn('claims', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('license_quota').ifExists().execute();
}
