import type { Kysely } from 'kysely';

/**
 * TDE database clients (docs/tde-database.md, modules/tde-database): databases reading their
 * data-at-rest keys from the key endpoint with an access token (kept as its SHA-256: the token
 * is 256 random bits, so a fast hash is as good as a slow one), and the keys each may read,
 * under the numeric key id the database asks for. `reads`, `last_*`: the read tallies, written
 * about once a minute. A grant names its key by id without a foreign key: a restore replaces
 * keys wholesale, and a read of a key that is gone is refused like one not in use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tde_db_client')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('ip_whitelist', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.unique())
    .addColumn('token_hint', 'text')
    .addColumn('token_issued_at', 'text')
    .addColumn('last_read_at', 'text')
    .addColumn('last_read_ip', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tde_db_client_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createTable('tde_db_key')
    .addColumn('client_id', 'text', (c) => c.notNull().references('tde_db_client.id').onDelete('cascade'))
    .addColumn('db_key_id', 'bigint', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('reads', 'bigint', (c) => c.notNull())
    .addColumn('last_read_at', 'text')
    .addColumn('last_version', 'integer')
    .addColumn('granted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tde_db_key_pk', ['client_id', 'db_key_id'])
    .execute();
  await db.schema.createIndex('tde_db_key_key_idx').on('tde_db_key').column('key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tde_db_key').ifExists().execute();
  await db.schema.dropTable('tde_db_client').ifExists().execute();
}
