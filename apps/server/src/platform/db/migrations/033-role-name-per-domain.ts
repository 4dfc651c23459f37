import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Role names are unique per domain, not across domains: a domain administrator no longer
 * learns another domain's role names from "already exists". Built-in roles (no domain) share
 * one namespace, `''` in the index; the role service keeps custom roles off built-in names.
 *
 * PostgreSQL drops the column's unique constraint. SQLite cannot drop the index an inline
 * UNIQUE made, so the table is rebuilt with foreign keys off (its grants in `user_role` must
 * not cascade away), as SQLite's ALTER TABLE documentation describes.
 */
const perDomain = sql`create unique index role_domain_name_idx on role (coalesce(domain_id, ''), name)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table role drop constraint if exists role_name_key`.execute(db);
    await perDomain.execute(db);
    return;
  }
  // SQLite migrations run outside a transaction (no transactional DDL in Kysely's adapter):
  // the pragma takes effect, and the rebuild is its own transaction.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql`create table role_033 (
        id text primary key,
        name text not null,
        description text not null default '',
        type text not null,
        permissions text not null,
        created_at text not null,
        domain_id text
      )`.execute(trx);
      await sql`insert into role_033 (id, name, description, type, permissions, created_at, domain_id)
        select id, name, description, type, permissions, created_at, domain_id from role`.execute(trx);
      await sql`drop table role`.execute(trx);
      await sql`alter table role_033 rename to role`.execute(trx);
      await perDomain.execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('migration 033: foreign keys broken by the role rebuild');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('role_domain_name_idx').execute();
  await db.schema.createIndex('role_name_key').unique().on('role').column('name').execute();
}
