import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('session')
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('console'))
    .execute();

  await db.schema
    .createTable('registration_token')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('cert_validity_days', 'integer', (c) => c.notNull())
    .addColumn('capacity', 'integer', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('registration_token_name_uq', ['domain_id', 'name'])
    .execute();

  await db.schema
    .createTable('ldap_connection')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('bind_dn', 'text', (c) => c.notNull())
    .addColumn('bind_password_wrapped', 'text')
    .addColumn('user_base_dn', 'text', (c) => c.notNull())
    .addColumn('username_attribute', 'text', (c) => c.notNull())
    .addColumn('user_dn_attribute', 'text', (c) => c.notNull())
    .addColumn('unique_id_attribute', 'text', (c) => c.notNull())
    .addColumn('user_filter', 'text', (c) => c.notNull())
    .addColumn('group_base_dn', 'text', (c) => c.notNull())
    .addColumn('group_filter', 'text', (c) => c.notNull())
    .addColumn('group_id_attribute', 'text', (c) => c.notNull())
    .addColumn('group_member_attribute', 'text', (c) => c.notNull())
    .addColumn('ca_certificate', 'text', (c) => c.notNull())
    .addColumn('verify_certificate', 'integer', (c) => c.notNull())
    .addColumn('group_roles', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('mfa_pending')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('app_user.id').onDelete('cascade'))
    .addColumn('password_ok_at', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text')
    .addColumn('challenge_expires_at', 'text')
    .addColumn('source_ip', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mfa_pending').ifExists().execute();
  await db.schema.dropTable('ldap_connection').ifExists().execute();
  await db.schema.dropTable('registration_token').ifExists().execute();
  await db.schema.alterTable('session').dropColumn('scope').execute();
}
