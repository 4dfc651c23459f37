import { sql, type Kysely } from 'kysely';

/**
 * Certificate serials are stored as `openssl x509 -serial` prints them (the value's octets). Until
 * this migration a certificate signed outside KSP whose serial has its top bit set was stored with
 * the zero octet DER puts before such a value (`0091…` for `91…`). KSP's own serials never have
 * it (their first octet is `01xxxxxx`), so only imported CA, external and uploaded certificates
 * change. Their serials are only shown and exported (revocation and OCSP look up KSP's own), so
 * going back leaves them in the shorter form, which an earlier version shows as it is.
 */
const TABLES = ['cert_ca', 'cert_certificate', 'cert_external'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`update ${sql.table(table)} set serial = substr(serial, 3)
      where serial like '00%' and length(serial) > 2
        and substr(serial, 3, 1) in ('8', '9', 'A', 'B', 'C', 'D', 'E', 'F')`.execute(db);
  }
}

export async function down(): Promise<void> {
  // Nothing to undo: see above.
}
