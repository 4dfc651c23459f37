import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * The key list hides the keys of certificates and CAs by default (modules/key/README.md,
 * "Certificate keys"): for each key it asks whether a certificate or CA holds it or its other
 * half, by `key_id`. These partial indexes make each question one index probe.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('cert_certificate_key_idx')
    .on('cert_certificate')
    .column('key_id')
    .where(sql.ref('key_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('cert_ca_key_idx')
    .on('cert_ca')
    .column('key_id')
    .where(sql.ref('key_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cert_ca_key_idx').ifExists().execute();
  await db.schema.dropIndex('cert_certificate_key_idx').ifExists().execute();
}
