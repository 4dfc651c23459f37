import type { Kysely } from 'kysely';

/**
 * Clients (modules/client): agents and applications enrolled with a registration token, each
 * holding a client certificate of its domain's CA (the certificate row is the cert module's;
 * the client keeps its id, serial and PEM to verify the agent's signed calls).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('client')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull())
    .addColumn('agent_version', 'text', (c) => c.notNull())
    .addColumn('mac', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('profile', 'text')
    .addColumn('groups', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text')
    .addColumn('token_name', 'text', (c) => c.notNull())
    .addColumn('cert_validity_days', 'integer', (c) => c.notNull())
    .addColumn('cert_id', 'text', (c) => c.notNull())
    .addColumn('cert_serial', 'text', (c) => c.notNull())
    .addColumn('cert_pem', 'text', (c) => c.notNull())
    .addColumn('cert_not_before', 'text', (c) => c.notNull())
    .addColumn('cert_not_after', 'text', (c) => c.notNull())
    .addColumn('cert_ca_name', 'text', (c) => c.notNull())
    .addColumn('last_request_ms', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('client_domain_type_idx')
    .on('client')
    .columns(['domain_id', 'type', 'last_seen_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('client').execute();
}
