import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { CertExternalTable } from '../../platform/db/schema.js';
import { contains } from './cert.store.js';

/* External CA certificates a domain keeps as trust anchors (`cert_external`). */

export async function insertExternal(db: Executor, row: CertExternalTable): Promise<void> {
  await db.insertInto('cert_external').values(row).execute();
}

export async function findExternal(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('cert_external')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findExternalByFingerprint(db: Executor, domainId: string, fingerprint: string) {
  return db
    .selectFrom('cert_external')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('fingerprint', '=', fingerprint)
    .executeTakeFirst();
}

export async function listExternal(
  db: Executor,
  domainId: string,
  name: string | undefined,
  page: PageQuery,
) {
  let q = db.selectFrom('cert_external').where('domain_id', '=', domainId);
  if (name) {
    const text = contains(name);
    q = q.where(sql<boolean>`(name like ${text} escape '\\' or subject like ${text} escape '\\')`);
  }
  return pagedRows(q, page, (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id'));
}

export async function deleteExternal(db: Executor, domainId: string, ids: string[]): Promise<number> {
  const result = await db
    .deleteFrom('cert_external')
    .where('domain_id', '=', domainId)
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The certificates (DER, Base64) of a domain's external CAs. */
export async function externalCertificates(db: Executor, domainId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('cert_external')
    .select('cert_der')
    .where('domain_id', '=', domainId)
    .execute();
  return rows.map((r) => r.cert_der);
}
