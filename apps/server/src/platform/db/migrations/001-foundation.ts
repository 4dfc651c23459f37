import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('system_state')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('initialized_at', 'text')
    .addColumn('activated_at', 'text')
    .addColumn('root_key_wrapped', 'text')
    .addColumn('root_kcv', 'text')
    .addColumn('seal_fingerprint', 'text')
    .execute();

  await db.schema
    .createTable('domain')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('parent_id', 'text', (c) => c.references('domain.id'))
    .addColumn('kek_wrapped', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('app_user')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text')
    .addColumn('directory', 'text')
    .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_changed_at', 'text')
    .addColumn('last_login_at', 'text')
    .addColumn('login_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_failed_login_at', 'text')
    .addColumn('failed_login_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'text')
    .addColumn('ip_whitelist', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('app_secret_hash', 'text')
    .addColumn('ukey_serial', 'text')
    .addColumn('ukey_cert', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('role')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_role')
    .addColumn('user_id', 'text', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('role_id', 'text', (c) => c.notNull().references('role.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_role_pk', ['user_id', 'role_id'])
    .execute();

  await db.schema
    .createTable('user_domain')
    .addColumn('user_id', 'text', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_domain_pk', ['user_id', 'domain_id'])
    .execute();

  await db.schema
    .createTable('session')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('login_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('source_ip', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('session_user_idx').on('session').column('user_id').execute();

  await db.schema
    .createTable('config')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('built_in', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text')
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('source_ip', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('audit_at_idx').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_domain_idx').on('audit_log').columns(['domain_id', 'at']).execute();

  await db.schema
    .createTable('password_policy')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('min_length', 'integer', (c) => c.notNull())
    .addColumn('max_length', 'integer', (c) => c.notNull())
    .addColumn('min_lowercase', 'integer', (c) => c.notNull())
    .addColumn('min_uppercase', 'integer', (c) => c.notNull())
    .addColumn('min_digits', 'integer', (c) => c.notNull())
    .addColumn('min_special', 'integer', (c) => c.notNull())
    .addColumn('lockout_disabled', 'integer', (c) => c.notNull())
    .addColumn('max_failed_attempts', 'integer', (c) => c.notNull())
    .addColumn('expiry_days', 'integer', (c) => c.notNull())
    .addColumn('min_change_days', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'password_policy',
    'audit_log',
    'config',
    'session',
    'user_domain',
    'user_role',
    'role',
    'app_user',
    'domain',
    'system_state',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
