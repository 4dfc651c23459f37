import { sql, type SelectQueryBuilder } from 'kysely';
import type { BackupFilter, BackupScope } from '@ksp/contracts';
import { engineOf, escapeLike, type Executor } from '../../platform/db/database.js';
import type { DomainTable } from '../../platform/db/schema.js';
import { SYSTEM_TABLES, type LooseDb, type LooseSchema, type Narrow, type Row } from './backup.tables.js';

/** The database seen with table names chosen at run time. */
const loose = (db: Executor) => db as unknown as LooseDb;

/** What one backup holds: its domain, a partial backup's filter, a key rotation backup's keys. */
export interface Plan {
  domain: DomainTable | null;
  filter: BackupFilter | null;
  keyIds: string[] | null;
}

/** One table a backup reads: paged by `key` (keyset), or by offset over `order`, optionally narrowed. */
export interface Source {
  table: string;
  key: string;
  order?: readonly string[];
  narrow?: Narrow;
}

/** `ids`, or a list matching nothing when empty (`in ()` is not SQL). */
const idsOrNone = (ids: readonly string[]) => (ids.length ? [...ids] : ['']);

/** Narrowing of kms_key for a plan. */
function keyNarrow(plan: Plan): Narrow {
  return <O>(q: SelectQueryBuilder<LooseSchema, string, O>) => {
    if (plan.keyIds) return q.where('id', 'in', idsOrNone(plan.keyIds));
    q = q.where('domain_id', '=', plan.domain!.id);
    if (plan.filter) {
      const f = plan.filter;
      q = q.where((eb) => {
        const any = [];
        if (f.key_ids.length) any.push(eb('id', 'in', f.key_ids));
        if (f.key_name) any.push(eb('name', 'like', `%${escapeLike(f.key_name)}%`));
        return any.length ? eb.or(any) : eb.val(false);
      });
    }
    return q;
  };
}

/**
 * Every table (with its narrowing) a backup of `scope` holds, in restore order. Key versions
 * are listed without narrowing: they are read with each page of keys (`versionsOfKeys`).
 */
export function sourcesOf(db: Executor, scope: BackupScope, plan: Plan): Source[] {
  if (scope === 'system') return SYSTEM_TABLES.map((t) => ({ ...t }));
  const d = plan.domain?.id ?? '';
  const inDomain: Narrow = (q) => q.where('domain_id', '=', d);
  const keys = { table: 'kms_key', key: 'id', narrow: keyNarrow(plan) };
  const versions = { table: 'kms_key_version', key: '' };
  if (scope === 'key_rotation') return [keys, versions];
  if (scope === 'partial') {
    const ids = idsOrNone(plan.filter?.cert_ids ?? []);
    return [
      keys,
      versions,
      { table: 'cert_certificate', key: 'id', narrow: (q) => inDomain(q).where('id', 'in', ids) },
    ];
  }
  return [
    keys,
    versions,
    { table: 'cert_ca', key: 'id', narrow: inDomain },
    {
      table: 'cert_crl',
      key: 'ca_id',
      narrow: (q) =>
        q.where('ca_id', 'in', loose(db).selectFrom('cert_ca').select('id').where('domain_id', '=', d)),
    },
    { table: 'cert_certificate', key: 'id', narrow: inDomain },
    { table: 'cert_external', key: 'id', narrow: inDomain },
  ];
}

// ---- reading what a backup holds ----

/** One keyset page of a table (optionally narrowed): `limit` rows after key `after` (null: from the start). */
export async function tablePage(
  db: Executor,
  s: Pick<Source, 'table' | 'key' | 'narrow'>,
  after: unknown,
  limit: number,
): Promise<Row[]> {
  let q = loose(db).selectFrom(s.table).selectAll();
  if (s.narrow) q = s.narrow(q);
  if (after !== null) q = q.where(s.key, '>', after);
  return q.orderBy(s.key).limit(limit).execute();
}

/** One page of a small table with a composite key, by offset over its `order`. */
export async function offsetPage(
  db: Executor,
  table: string,
  order: readonly string[],
  offset: number,
  limit: number,
): Promise<Row[]> {
  let q = loose(db).selectFrom(table).selectAll();
  for (const c of order) q = q.orderBy(c);
  return q.offset(offset).limit(limit).execute();
}

/** How many rows of a table (optionally narrowed) a backup holds. */
export async function countRows(db: Executor, table: string, narrow?: Narrow): Promise<number> {
  let q = loose(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'));
  if (narrow) q = narrow(q);
  const row = (await q.executeTakeFirst()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** The versions of the given keys, by key and version. */
export function versionsOfKeys(db: Executor, keyIds: string[]) {
  return db
    .selectFrom('kms_key_version')
    .selectAll()
    .where('key_id', 'in', keyIds)
    .orderBy('key_id')
    .orderBy('version')
    .execute();
}

/** The domains the given keys belong to. */
export async function domainsOfKeys(db: Executor, keyIds: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('kms_key')
    .select('domain_id')
    .distinct()
    .where('id', 'in', idsOrNone(keyIds))
    .execute();
  return rows.map((r) => r.domain_id);
}

// ---- writing what a restore reads ----

/** Inserts one batch of rows of a table. */
export async function insertRows(trx: Executor, table: string, rows: Row[]): Promise<void> {
  if (!rows.length) return;
  if (engineOf(trx) === 'postgres') {
    // One JSON parameter per batch, which PostgreSQL maps onto the table's columns by name and
    // type: a VALUES list of 25,000 parameters costs more to parse and plan than the insert.
    await sql`insert into ${sql.table(table)}
              select * from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`.execute(
      trx,
    );
    return;
  }
  await loose(trx).insertInto(table).values(rows).execute();
}

/** Empties every table a system backup holds (children first), with the sessions. */
export async function clearSystem(trx: Executor): Promise<void> {
  const t = loose(trx);
  for (const table of ['session', 'mfa_pending']) await t.deleteFrom(table).execute();
  for (const spec of [...SYSTEM_TABLES].reverse()) {
    if (spec.table === 'domain') await t.updateTable('domain').set({ parent_id: null }).execute();
    await t.deleteFrom(spec.table).execute();
  }
}

/** Deletes a domain's keys and certificates (what a domain backup holds). */
export async function clearDomain(trx: Executor, domainId: string): Promise<void> {
  await trx
    .deleteFrom('cert_crl')
    .where('ca_id', 'in', (eb) => eb.selectFrom('cert_ca').select('id').where('domain_id', '=', domainId))
    .execute();
  await trx.deleteFrom('cert_certificate').where('domain_id', '=', domainId).execute();
  await trx.deleteFrom('cert_ca').where('domain_id', '=', domainId).execute();
  await trx.deleteFrom('cert_external').where('domain_id', '=', domainId).execute();
  await trx
    .deleteFrom('kms_key_version')
    .where('key_id', 'in', (eb) => eb.selectFrom('kms_key').select('id').where('domain_id', '=', domainId))
    .execute();
  await trx.deleteFrom('kms_key').where('domain_id', '=', domainId).execute();
}

/** The keys or certificates of `ids` that exist, with their domain. */
export function existingRows(trx: Executor, table: 'kms_key' | 'cert_certificate', ids: string[]) {
  return trx.selectFrom(table).select(['id', 'domain_id']).where('id', 'in', ids).execute();
}

/** Deletes keys (with their versions) or certificates by id. */
export async function deleteById(trx: Executor, table: 'kms_key' | 'cert_certificate', ids: string[]) {
  if (table === 'kms_key') await trx.deleteFrom('kms_key_version').where('key_id', 'in', ids).execute();
  await trx.deleteFrom(table).where('id', 'in', ids).execute();
}

/** Of the keys or CAs of `ids`, those in the given domains. */
export function ownedIds(trx: Executor, table: 'kms_key' | 'cert_ca', ids: string[], domainIds: string[]) {
  return trx
    .selectFrom(table)
    .select('id')
    .where('id', 'in', ids)
    .where('domain_id', 'in', domainIds)
    .execute();
}

export async function setDomainParent(trx: Executor, id: string, parent: string): Promise<void> {
  await trx.updateTable('domain').set({ parent_id: parent }).where('id', '=', id).execute();
}

/**
 * Turns the key tally's row trigger (PostgreSQL) off or on, within the transaction: a bulk
 * restore recounts instead (`recountTally`).
 */
export async function setTallyTrigger(trx: Executor, on: boolean): Promise<void> {
  if (on) await sql`alter table kms_key enable trigger kms_key_tally`.execute(trx);
  else await sql`alter table kms_key disable trigger kms_key_tally`.execute(trx);
}

/** The key tally (migration 007) of the given domains (all: null), counted afresh. */
export async function recountTally(trx: Executor, domains: string[] | null): Promise<void> {
  const group = sql.raw('domain_id, state, algorithm, object_type, substr(created_at, 1, 7)');
  if (domains && domains.length === 0) return;
  const only = domains ? sql`where domain_id in (${sql.join(domains)})` : sql``;
  await sql`delete from kms_key_tally ${only}`.execute(trx);
  await sql`insert into kms_key_tally (domain_id, state, algorithm, object_type, month, keys)
            select ${group}, count(*) from kms_key ${only} group by ${group}`.execute(trx);
}
