import type { Kysely } from 'kysely';

/**
 * Certificates (modules/cert): local CAs (their private keys are key objects of `kms_key`),
 * the certificates they issue, each CA's current CRL, and external CA certificates kept as
 * trust anchors. Certificates, CSRs and CRLs are stored as Base64 DER; they hold no secret.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cert_ca')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cn', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('key_bits', 'integer', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('type', 'text')
    .addColumn('parent_id', 'text')
    .addColumn('path_len', 'integer')
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('issuer', 'text')
    .addColumn('serial', 'text')
    .addColumn('not_before', 'text')
    .addColumn('not_after', 'text')
    .addColumn('fingerprint', 'text')
    .addColumn('ski', 'text', (c) => c.notNull())
    .addColumn('cert_der', 'text')
    .addColumn('chain_der', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('csr_der', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('cert_ca_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema.createIndex('cert_ca_parent_idx').on('cert_ca').columns(['parent_id']).execute();

  await db.schema
    .createTable('cert_certificate')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('ca_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cn', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('key_bits', 'integer', (c) => c.notNull())
    .addColumn('serial', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('cert_der', 'text', (c) => c.notNull())
    .addColumn('csr_der', 'text')
    .addColumn('key_id', 'text')
    .addColumn('exportable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('san', 'text', (c) => c.notNull())
    .addColumn('key_usage', 'text', (c) => c.notNull())
    .addColumn('revocation_reason', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('deleted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('cert_certificate_serial_uq', ['ca_id', 'serial'])
    .execute();
  await db.schema
    .createIndex('cert_certificate_list_idx')
    .on('cert_certificate')
    .columns(['domain_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('cert_certificate_expiry_idx')
    .on('cert_certificate')
    .columns(['domain_id', 'not_after'])
    .execute();
  await db.schema
    .createIndex('cert_certificate_revoked_idx')
    .on('cert_certificate')
    .columns(['ca_id', 'revoked_at'])
    .execute();

  await db.schema
    .createTable('cert_crl')
    .addColumn('ca_id', 'text', (c) => c.primaryKey())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('this_update', 'text', (c) => c.notNull())
    .addColumn('next_update', 'text', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('der', 'text', (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('cert_external')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('serial', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('self_signed', 'integer', (c) => c.notNull())
    .addColumn('cert_der', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('cert_external_fingerprint_uq', ['domain_id', 'fingerprint'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cert_external').execute();
  await db.schema.dropTable('cert_crl').execute();
  await db.schema.dropTable('cert_certificate').execute();
  await db.schema.dropTable('cert_ca').execute();
}
