import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Licences (modules/license): the installation's identity, made once here at the first run
 * and shared by every node of the database (its lock code is derived from it), and the
 * activated licences with their verified payload.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('license_install')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('install_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await (db as Kysely<{ license_install: { id: string; install_id: string; created_at: string } }>)
    .insertInto('license_install')
    .values({ id: 'install', install_id: randomUUID(), created_at: new Date().toISOString() })
    .execute();
  await db.schema
    .createTable('license')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('license_id', 'text', (c) => c.notNull().unique())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('lock_code', 'text', (c) => c.notNull())
    .addColumn('bind_type', 'text', (c) => c.notNull())
    .addColumn('features', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text', (c) => c.notNull())
    .addColumn('activated_by', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('license').execute();
  await db.schema.dropTable('license_install').execute();
}
