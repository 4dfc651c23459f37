import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { CertExternalTable, ExternalKind } from '../../platform/db/schema.js';
import { contains } from './cert.store.js';

/*
 * External certificates of a domain (`cert_external`): CA certificates it keeps as trust anchors
 * (kind `ca`) and end-entity certificates it only keeps (kind `certificate`, migration 038).
 */

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
  filter: { name?: string | undefined; kind?: ExternalKind | undefined },
  page: PageQuery,
) {
  const { name, kind } = filter;
  let q = db.selectFrom('cert_external').where('domain_id', '=', domainId);
  if (kind) q = q.where('kind', '=', kind);
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

/**
 * A domain's trust anchors: its external CA certificates (DER, Base64). End-entity certificates
 * of the same table are never among them.
 */
export async function externalCaCertificates(db: Executor, domainId: string) {
  return db
    .selectFrom('cert_external')
    .select(['id', 'name', 'cert_der'])
    .where('domain_id', '=', domainId)
    .where('kind', '=', 'ca')
    .execute();
}
