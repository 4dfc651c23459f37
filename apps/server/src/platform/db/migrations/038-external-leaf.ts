import type { Kysely } from 'kysely';

/**
 * External certificates (modules/cert, `cert_external`) are of two kinds: `ca`, a CA certificate
 * the domain keeps as a trust anchor (every row before this migration: uploads took CA
 * certificates only), and `certificate`, an end-entity certificate kept for a KMIP client or an
 * upload that only stores it (a storage array's or database's own certificate). Only `ca` rows
 * are ever trust anchors. The kind is the certificate's own (basicConstraints CA), written
 * when it is stored; it sits in the same table so that KMIP's identifiers, the fingerprint's
 * uniqueness in a domain, backups and domain deletion stay one for both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('cert_external')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('ca'))
    .execute();
}

/** Going back removes the end-entity certificates first: without the column they would read as CAs. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await (db as Kysely<{ cert_external: { kind: string } }>)
    .deleteFrom('cert_external')
    .where('kind', '=', 'certificate')
    .execute();
  await db.schema.alterTable('cert_external').dropColumn('kind').execute();
}
