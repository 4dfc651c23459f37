import { sql } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { CertCaTable, CertCertificateTable, CertCrlTable } from '../../platform/db/schema.js';

/** A LIKE pattern matching `text` anywhere (its wildcards escaped). */
export const contains = (text: string) => `%${escapeLike(text)}%`;

/* Local CAs */

export async function insertCa(db: Executor, row: CertCaTable): Promise<void> {
  await db.insertInto('cert_ca').values(row).execute();
}

export async function findCa(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('cert_ca')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A CA by id alone: for the public CRL and OCSP routes, which name no domain. */
export async function findCaAnyDomain(db: Executor, id: string) {
  return db.selectFrom('cert_ca').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCaByName(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('cert_ca')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function findDefaultCa(db: Executor, domainId: string) {
  return db
    .selectFrom('cert_ca')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

export async function countCas(db: Executor, domainId: string): Promise<number> {
  const row = await db
    .selectFrom('cert_ca')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function listCas(
  db: Executor,
  domainId: string,
  filter: { name?: string | undefined; state?: string | undefined; type?: string | undefined; now: string },
  page: PageQuery,
) {
  let q = db.selectFrom('cert_ca').where('domain_id', '=', domainId);
  if (filter.name) {
    const text = contains(filter.name);
    q = q.where(sql<boolean>`(name like ${text} escape '\\' or cn like ${text} escape '\\')`);
  }
  if (filter.state === 'pending') q = q.where('state', '=', 'pending');
  if (filter.state === 'active') q = q.where('state', '=', 'active').where('not_after', '>', filter.now);
  if (filter.state === 'expired') q = q.where('state', '=', 'active').where('not_after', '<=', filter.now);
  if (filter.type) q = q.where('type', '=', filter.type as 'root' | 'intermediate');
  // The name is unique in a domain: the order is total.
  return pagedRows(q, page, (rows) => rows.selectAll().orderBy('created_at').orderBy('name'));
}

export async function updateCa(db: Executor, id: string, changes: Partial<CertCaTable>): Promise<void> {
  await db.updateTable('cert_ca').set(changes).where('id', '=', id).execute();
}

export async function clearDefaultCa(db: Executor, domainId: string): Promise<void> {
  await db.updateTable('cert_ca').set({ is_default: 0 }).where('domain_id', '=', domainId).execute();
}

export async function caNames(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('cert_ca').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Certificates of each CA that are not deleted (the list's "issued" figure). */
export async function issuedCounts(db: Executor, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('cert_certificate')
    .select((eb) => ['ca_id', eb.fn.countAll<string | number>().as('n')])
    .where('ca_id', 'in', ids)
    .where('deleted_at', 'is', null)
    .groupBy('ca_id')
    .execute();
  return new Map(rows.map((r) => [r.ca_id, Number(r.n)]));
}

/** The CAs a CA signed. */
export async function childCas(db: Executor, id: string): Promise<string[]> {
  const rows = await db.selectFrom('cert_ca').select('id').where('parent_id', '=', id).execute();
  return rows.map((r) => r.id);
}

/**
 * Whether a CA has a certificate not yet expired and not revoked for good (on hold counts),
 * besides those with the serials in `except`.
 */
export async function hasValidCertificates(
  db: Executor,
  id: string,
  now: string,
  except: readonly string[] = [],
): Promise<boolean> {
  const valid = await db
    .selectFrom('cert_certificate')
    .select('id')
    .where('ca_id', '=', id)
    .where('not_after', '>', now)
    .$if(except.length > 0, (q) => q.where('serial', 'not in', [...except]))
    .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revocation_reason', '=', 'certificateHold')]))
    .executeTakeFirst();
  return Boolean(valid);
}

export async function deleteCa(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('cert_crl').where('ca_id', '=', id).execute();
  await db.deleteFrom('cert_certificate').where('ca_id', '=', id).execute();
  await db.deleteFrom('cert_ca').where('id', '=', id).execute();
}

/* Certificates */

/** The columns of `cert_certificate`, in the order the journal writes them (issuing's group commit). */
export const certificateColumns = [
  'id',
  'domain_id',
  'ca_id',
  'name',
  'cn',
  'subject',
  'issuer',
  'purpose',
  'usage',
  'algorithm',
  'key_bits',
  'serial',
  'not_before',
  'not_after',
  'fingerprint',
  'cert_der',
  'csr_der',
  'key_id',
  'exportable',
  'source',
  'san',
  'key_usage',
  'revocation_reason',
  'revoked_at',
  'deleted_at',
  'created_at',
] as const satisfies (keyof CertCertificateTable)[];

export async function insertCertificate(db: Executor, row: CertCertificateTable): Promise<void> {
  await db.insertInto('cert_certificate').values(row).execute();
}

export async function findCertificate(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('cert_certificate')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Active CAs (of any domain) that may have issued a certificate: by its authority key
 * identifier, or by its issuer name when it has none. The signature decides among them.
 */
export async function issuerCandidates(db: Executor, aki: string | null, issuer: string) {
  return db
    .selectFrom('cert_ca')
    .selectAll()
    .where('state', '=', 'active')
    .where((eb) => (aki ? eb('ski', '=', aki) : eb('subject', '=', issuer)))
    .execute();
}

/** For OCSP: the certificate a CA issued with this serial (deleted ones too: they keep their status). */
export async function findBySerial(db: Executor, caId: string, serial: string) {
  return db
    .selectFrom('cert_certificate')
    .select(['id', 'serial', 'revoked_at', 'revocation_reason', 'not_after'])
    .where('ca_id', '=', caId)
    .where('serial', '=', serial)
    .executeTakeFirst();
}

export interface CertificateFilter {
  name?: string | undefined;
  caId?: string | undefined;
  status?: string | undefined;
  purpose?: string | undefined;
  source?: string | undefined;
  expiringUntil?: string | undefined;
  now: string;
}

export async function listCertificates(
  db: Executor,
  domainId: string,
  filter: CertificateFilter,
  page: PageQuery,
) {
  let q = db.selectFrom('cert_certificate').where('domain_id', '=', domainId).where('deleted_at', 'is', null);
  if (filter.name) {
    const text = contains(filter.name);
    q = q.where(sql<boolean>`(name like ${text} escape '\\' or cn like ${text} escape '\\')`);
  }
  if (filter.caId) q = q.where('ca_id', '=', filter.caId);
  if (filter.purpose) q = q.where('purpose', '=', filter.purpose);
  if (filter.source) q = q.where('source', '=', filter.source);
  switch (filter.status) {
    case 'normal':
      q = q.where('revoked_at', 'is', null).where('not_after', '>', filter.now);
      break;
    case 'revoked':
      q = q.where('revoked_at', 'is not', null).where('revocation_reason', '!=', 'certificateHold');
      break;
    case 'hold':
      q = q.where('revocation_reason', '=', 'certificateHold');
      break;
    case 'expired':
      q = q.where('revoked_at', 'is', null).where('not_after', '<=', filter.now);
      break;
  }
  if (filter.expiringUntil) {
    q = q
      .where('revoked_at', 'is', null)
      .where('not_after', '>', filter.now)
      .where('not_after', '<=', filter.expiringUntil);
  }
  return pagedRows(q, page, (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'));
}

export async function updateCertificate(
  db: Executor,
  id: string,
  changes: Partial<CertCertificateTable>,
): Promise<void> {
  await db.updateTable('cert_certificate').set(changes).where('id', '=', id).execute();
}

/** Certificate figures of one domain, or of every domain (`null`). */
export async function certificateFigures(db: Executor, domainId: string | null, now: string, soon: string) {
  const row = await db
    .selectFrom('cert_certificate')
    .select((eb) => [
      eb.fn.countAll<string | number>().as('total'),
      eb.fn
        .sum<string | number | null>(eb.case().when('revoked_at', 'is not', null).then(1).else(0).end())
        .as('revoked'),
      eb.fn
        .sum<string | number | null>(
          eb
            .case()
            .when(eb.and([eb('revoked_at', 'is', null), eb('not_after', '<=', now)]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('expired'),
      eb.fn
        .sum<string | number | null>(
          eb
            .case()
            .when(
              eb.and([eb('revoked_at', 'is', null), eb('not_after', '>', now), eb('not_after', '<=', soon)]),
            )
            .then(1)
            .else(0)
            .end(),
        )
        .as('expiring'),
    ])
    .$if(domainId !== null, (q) => q.where('domain_id', '=', domainId ?? ''))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const n = (v: string | number | null | undefined) => Number(v ?? 0);
  const total = n(row?.total);
  const revoked = n(row?.revoked);
  const expired = n(row?.expired);
  return { total, revoked, expired, expiring: n(row?.expiring), valid: total - revoked - expired };
}

/** The entries of a CA's CRL: revoked certificates not yet expired (deleted ones too). */
export async function revokedEntries(db: Executor, caId: string, now: string) {
  return db
    .selectFrom('cert_certificate')
    .select(['serial', 'revoked_at', 'revocation_reason'])
    .where('ca_id', '=', caId)
    .where('revoked_at', 'is not', null)
    .where('not_after', '>', now)
    .orderBy('revoked_at')
    .execute();
}

/* CRLs */

export async function findCrl(db: Executor, caId: string) {
  return db.selectFrom('cert_crl').selectAll().where('ca_id', '=', caId).executeTakeFirst();
}

export async function saveCrl(db: Executor, row: CertCrlTable): Promise<void> {
  await db
    .insertInto('cert_crl')
    .values(row)
    .onConflict((oc) =>
      oc.column('ca_id').doUpdateSet({
        number: row.number,
        this_update: row.this_update,
        next_update: row.next_update,
        entries: row.entries,
        der: row.der,
        stale: 0,
      }),
    )
    .execute();
}

export async function markCrlStale(db: Executor, caId: string): Promise<void> {
  await db.updateTable('cert_crl').set({ stale: 1 }).where('ca_id', '=', caId).execute();
}

/** CAs whose CRL is stale or reaches the refresh point. */
export async function crlsToRefresh(db: Executor, refreshBefore: string) {
  return db
    .selectFrom('cert_ca')
    .leftJoin('cert_crl', 'cert_crl.ca_id', 'cert_ca.id')
    .select(['cert_ca.id', 'cert_ca.domain_id'])
    .where('cert_ca.state', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('cert_crl.ca_id', 'is', null),
        eb('cert_crl.stale', '=', 1),
        eb('cert_crl.next_update', '<=', refreshBefore),
      ]),
    )
    .execute();
}
