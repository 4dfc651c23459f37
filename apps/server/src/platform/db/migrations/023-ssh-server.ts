import type { Kysely } from 'kysely';

/**
 * Servers of the SMS sub-console (modules/ssh-server): SSH targets linked to a credential of
 * their domain, their pinned host key, rotation settings and terminal access lists; and the
 * history of their password rotations (errors stored as message keys, never a secret).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ssh_server')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    // A deleted credential leaves the server without one (it then refuses to connect).
    .addColumn('credential_id', 'text', (c) => c.references('credential.id').onDelete('set null'))
    .addColumn('host_key_fingerprint', 'text')
    .addColumn('host_key_type', 'text')
    .addColumn('rotation_enabled', 'integer', (c) => c.notNull())
    .addColumn('rotation_days', 'integer', (c) => c.notNull())
    .addColumn('rotation_hour', 'integer', (c) => c.notNull())
    .addColumn('rotation_length', 'integer', (c) => c.notNull())
    /** JSON `{lower, upper, digits, symbols}`. */
    .addColumn('rotation_charset', 'text', (c) => c.notNull())
    .addColumn('next_rotation_at', 'text')
    .addColumn('last_rotation_at', 'text')
    .addColumn('last_rotation_result', 'text')
    /** Set while a rotation runs (its start time): one rotation per server at a time. */
    .addColumn('rotating_since', 'text')
    .addColumn('terminal_users', 'text', (c) => c.notNull())
    .addColumn('terminal_roles', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ssh_server_domain_name_uq', ['domain_id', 'name'])
    .execute();
  // A credential is one server's: two servers rotating one password would overwrite each other.
  await db.schema
    .createIndex('ssh_server_credential_uq')
    .on('ssh_server')
    .column('credential_id')
    .unique()
    .execute();
  await db.schema
    .createIndex('ssh_server_next_rotation_idx')
    .on('ssh_server')
    .columns(['rotation_enabled', 'next_rotation_at'])
    .execute();
  await db.schema
    .createTable('ssh_server_rotation')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'text', (c) => c.notNull().references('ssh_server.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('by', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('ssh_server_rotation_server_idx')
    .on('ssh_server_rotation')
    .columns(['server_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ssh_server_rotation').execute();
  await db.schema.dropTable('ssh_server').execute();
}
