import { KEY_TOTAL_CAP } from '@ksp/contracts';
import { sql } from 'kysely';
import { engineOf, escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import { turnLoader } from '../../platform/db/turn-loader.js';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { keyColumns, keyVersionColumns } from './key.columns.js';
import { heldByCertificate, heldKeyIds, type CertificateKeys } from './key.holders.store.js';

export async function insertKey(db: Executor, row: KeyTable): Promise<void> {
  await db.insertInto('kms_key').values(row).execute();
}

export async function insertKeyVersion(db: Executor, row: KeyVersionTable): Promise<void> {
  await db.insertInto('kms_key_version').values(row).execute();
}

export async function findKey(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('kms_key')
    .select(keyColumns)
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A key by id whatever its domain: for the crypto API's cache, which checks the domain itself. */
export async function readKey(db: Executor, id: string) {
  return db.selectFrom('kms_key').select(keyColumns).where('id', '=', id).executeTakeFirst();
}

export async function findKeyByName(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('kms_key')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/**
 * Whether a key of the domain already has the name, for the names asked in one turn of the
 * event loop by one query (creations arrive together; each would otherwise cost a round trip).
 */
export function nameLookup(db: Executor) {
  return turnLoader<{ domainId: string; name: string }, boolean>(async (asked) => {
    const byDomain = new Map<string, string[]>();
    for (const { domainId, name } of asked) {
      const names = byDomain.get(domainId);
      if (names) names.push(name);
      else byDomain.set(domainId, [name]);
    }
    const rows = await db
      .selectFrom('kms_key')
      .select(['domain_id', 'name'])
      .where((eb) =>
        eb.or(
          [...byDomain].map(([domainId, names]) =>
            eb.and([eb('domain_id', '=', domainId), eb('name', 'in', names)]),
          ),
        ),
      )
      .execute();
    const taken = new Set(rows.map((r) => `${r.domain_id}\u0000${r.name}`));
    return asked.map((a) => taken.has(`${a.domainId}\u0000${a.name}`));
  });
}

export async function findVersion(db: Executor, keyId: string, version: number) {
  return db
    .selectFrom('kms_key_version')
    .select(keyVersionColumns)
    .where('key_id', '=', keyId)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function listVersions(db: Executor, keyId: string) {
  return db
    .selectFrom('kms_key_version')
    .select(keyVersionColumns)
    .where('key_id', '=', keyId)
    .orderBy('version', 'desc')
    .execute();
}

export interface KeyFilter {
  /** Names containing this text. */
  name?: string | undefined;
  /** Names starting with this text (case-sensitive). */
  namePrefix?: string | undefined;
  states?: string[] | undefined;
  algorithm?: string | undefined;
  type?: KeyTable['object_type'] | undefined;
  usageBits?: number | undefined;
  /** Keys a certificate or CA holds: left out (hide, the default), listed too, or alone. */
  certificateKeys?: CertificateKeys | undefined;
}

/** Above every character a key name may hold: `prefix + this` ends the range of names starting with prefix. */
const PAST_PREFIX = '\u{10FFFF}';

/**
 * A page of keys, newest first, and its total. The page's ids come from `kms_key_list_idx`
 * alone, then their rows and current versions by id. When the filter is one `kms_key_tally`
 * knows (state, algorithm, type), the total is summed from it and the page is found from the
 * month that holds its first key. With a name or usage filter, the matching keys are counted
 * up to KEY_TOTAL_CAP; a page is then an OFFSET over the list index, or, for a name prefix
 * that fewer keys match, a sort of those keys read by name.
 * Keys a certificate or CA holds are left out unless asked for (`certificateKeys`); in the
 * tally's case their count, per month, is taken from the tally's (or is the total, for `only`).
 */
export async function listKeys(
  db: Executor,
  domainId: string,
  filter: KeyFilter,
  offset: number,
  limit: number,
) {
  let q = db.selectFrom('kms_key').where('domain_id', '=', domainId);
  if (filter.name) q = q.where(sql<boolean>`name like ${`%${escapeLike(filter.name)}%`} escape '\\'`);
  if (filter.namePrefix) {
    // A range in byte order, which kms_key_prefix_idx serves on both engines.
    const bytewise = sql.raw(engineOf(db) === 'postgres' ? 'collate "C"' : 'collate binary');
    q = q.where(sql<boolean>`name ${bytewise} >= ${filter.namePrefix}`);
    q = q.where(sql<boolean>`name ${bytewise} < ${filter.namePrefix + PAST_PREFIX}`);
  }
  if (filter.states) q = q.where('state', 'in', filter.states);
  if (filter.algorithm) q = q.where('algorithm', '=', filter.algorithm);
  if (filter.type) q = q.where('object_type', '=', filter.type);
  const bits = filter.usageBits;
  if (bits) {
    // Integer bit test that both engines evaluate the same way.
    q = q.where((eb) => eb(eb('usage_mask', '&', bits), '=', bits));
  }
  const certificateKeys = filter.certificateKeys ?? 'hide';
  // Before the held-keys conditions: the tally's case counts held keys with these filters.
  const filtered = q;
  if (certificateKeys === 'hide') q = q.where(sql<boolean>`not ${heldByCertificate}`);
  if (certificateKeys === 'only') q = q.where(heldKeyIds(domainId));
  const pageIds = (from: typeof q, skip: number) =>
    from.select('id').orderBy('created_at', 'desc').orderBy('name').offset(skip).limit(limit).execute();

  let ids: string[];
  let total: number;
  let capped = false;
  if (!filter.name && !filter.namePrefix && !bits) {
    // The tally knows these filters: the total is its sum, and the page's scan starts at the
    // month holding its first key, skipping only that month's newer keys.
    let t = db.selectFrom('kms_key_tally').where('domain_id', '=', domainId);
    if (filter.states) t = t.where('state', 'in', filter.states);
    if (filter.algorithm) t = t.where('algorithm', '=', filter.algorithm);
    if (filter.type) t = t.where('object_type', '=', filter.type);
    const months = await t
      .select((eb) => ['month', eb.fn.sum<string | number>('keys').as('n')])
      .groupBy('month')
      .orderBy('month', 'desc')
      .execute();
    // The held keys these filters match, by month: few, read by primary key.
    const held = new Map<string, number>();
    if (certificateKeys !== 'show') {
      const month = sql<string>`substr(created_at, 1, 7)`;
      const rows = await filtered
        .where(heldKeyIds(domainId))
        .select((eb) => [month.as('month'), eb.fn.countAll<string | number>().as('n')])
        .groupBy(month)
        .execute();
      for (const r of rows) held.set(r.month, Number(r.n));
    }
    total = 0;
    let start: { month: string; newer: number } | null = null;
    for (const m of months) {
      const inHeld = held.get(m.month) ?? 0;
      const n =
        certificateKeys === 'show' ? Number(m.n) : certificateKeys === 'only' ? inHeld : Number(m.n) - inHeld;
      if (!start && total + n > offset) start = { month: m.month, newer: total };
      total += n;
    }
    ids = start
      ? (await pageIds(q.where('created_at', '<', nextMonth(start.month)), offset - start.newer)).map(
          (r) => r.id,
        )
      : [];
  } else {
    const countUpToCap = async () => {
      const counted = await db
        .selectFrom(
          q
            .select(sql<number>`1`.as('one'))
            .limit(KEY_TOTAL_CAP + 1)
            .as('m'),
        )
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst();
      return Number(counted?.n ?? 0);
    };
    let n: number | null = null;
    ids = [];
    if (filter.namePrefix) {
      // Few keys start so, usually: read at most KEY_TOTAL_CAP + 1 of them from
      // kms_key_prefix_idx, count and sort them in one pass, rather than walk the time order
      // until enough turn up (names made in a series are all of one time).
      const matches = q
        .select(['id', 'created_at', 'name'])
        .limit(KEY_TOTAL_CAP + 1)
        .as('m');
      const page = await db
        .selectFrom(matches)
        .select((eb) => ['m.id', eb.fn.countAll<string | number>().over().as('n')])
        .orderBy('m.created_at', 'desc')
        .orderBy('m.name')
        .offset(offset)
        .limit(limit)
        .execute();
      // A page past the last match has no row to carry the count.
      n = page.length ? Number(page[0]!.n) : await countUpToCap();
      ids = page.map((r) => r.id);
    }
    n ??= await countUpToCap();
    total = Math.min(n, KEY_TOTAL_CAP);
    capped = n > KEY_TOTAL_CAP;
    // Past the cap the page read above is of the first matches by name, not by time.
    if (capped || !filter.namePrefix) ids = (await pageIds(q, offset)).map((r) => r.id);
  }

  const found = ids.length
    ? await db
        .selectFrom('kms_key as k')
        .leftJoin('kms_key_version as v', (j) =>
          j.onRef('v.key_id', '=', 'k.id').onRef('v.version', '=', 'k.current_version'),
        )
        .select(keyColumns.map((c) => `k.${c}` as const))
        .select(['v.kcv', 'v.fingerprint'])
        .where('k.id', 'in', ids)
        .execute()
    : [];
  const byId = new Map(found.map((r) => [r.id, r]));
  return { rows: ids.flatMap((id) => byId.get(id) ?? []), total, capped };
}

/** The first instant of the month after `YYYY-MM`, as created_at compares with it. */
function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
}

export async function updateKey(
  db: Executor,
  id: string,
  changes: Partial<Omit<KeyTable, 'id' | 'domain_id'>>,
) {
  await db.updateTable('kms_key').set(changes).where('id', '=', id).execute();
}

export async function wipeMaterial(db: Executor, keyId: string): Promise<void> {
  await db
    .updateTable('kms_key_version')
    .set({ material_wrapped: null })
    .where('key_id', '=', keyId)
    .execute();
}

/** Deletes keys; the links between halves of a pair go first, so a pair deletes in one call. */
export async function deleteKeys(db: Executor, ids: string[]): Promise<number> {
  await db.updateTable('kms_key').set({ linked_key_id: null }).where('id', 'in', ids).execute();
  const result = await db.deleteFrom('kms_key').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countOperation(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('kms_key')
    .set((eb) => ({ operations: eb('operations', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** The audit records about the given keys, newest first. */
export async function listKeyAudit(db: Executor, domainId: string, keyIds: string[], page: PageQuery) {
  const q = db.selectFrom('audit_log').where('domain_id', '=', domainId).where('object_id', 'in', keyIds);
  const { rows, total } = await pagedRows(q, page, (found) =>
    found
      .select(['id', 'at', 'username', 'action', 'result', 'source_ip', 'count'])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc'),
  );
  return { data: rows, total };
}

/** Keys per state and algorithm, of one domain or all (null), from the tally (migration 007). */
export async function keyTallyFigures(db: Executor, domainId: string | null) {
  let q = db.selectFrom('kms_key_tally');
  if (domainId) q = q.where('domain_id', '=', domainId);
  const rows = await q
    .select((eb) => ['state', 'algorithm', eb.fn.sum<string | number>('keys').as('n')])
    .groupBy(['state', 'algorithm'])
    .execute();
  return rows.map((r) => ({ state: r.state, algorithm: r.algorithm, count: Number(r.n) }));
}

/**
 * Keys in use whose deactivation date has passed (overdue) and those whose date is at or
 * before `soon` (due), of one domain or all; read from the partial index of migration 014.
 */
export async function rotationFigures(db: Executor, domainId: string | null, now: string, soon: string) {
  let q = db
    .selectFrom('kms_key')
    .where('state', '=', 'active')
    .where('deactivation_date', 'is not', null)
    .where('deactivation_date', '<=', soon);
  if (domainId) q = q.where('domain_id', '=', domainId);
  const row = await q
    .select((eb) => [
      eb.fn
        .sum<string | number | null>(eb.case().when('deactivation_date', '<=', now).then(1).else(0).end())
        .as('overdue'),
      eb.fn.countAll<string | number>().as('all'),
    ])
    .executeTakeFirst();
  const overdue = Number(row?.overdue ?? 0);
  return { overdue, due: Number(row?.all ?? 0) - overdue };
}

/**
 * The domain's active keys that can get a new version (all but public keys), oldest first,
 * with their current version's time: of `algorithms` when given, and whose current version
 * was made at or before `versionBefore` when given.
 */
export async function rotatableKeys(
  db: Executor,
  domainId: string,
  only: { algorithms?: readonly string[] | undefined; versionBefore?: string | undefined },
) {
  let q = db
    .selectFrom('kms_key as k')
    .innerJoin('kms_key_version as v', (j) =>
      j.onRef('v.key_id', '=', 'k.id').onRef('v.version', '=', 'k.current_version'),
    )
    .select(['k.id', 'k.name', 'k.labels', 'v.created_at as version_at'])
    .where('k.domain_id', '=', domainId)
    .where('k.state', '=', 'active')
    .where('k.object_type', '!=', 'public');
  if (only.algorithms?.length) q = q.where('k.algorithm', 'in', [...only.algorithms]);
  if (only.versionBefore !== undefined) q = q.where('v.created_at', '<=', only.versionBefore);
  return q.orderBy('k.created_at').orderBy('k.id').execute();
}

/** Adds KMIP operations to keys' "KMIP total" (the kmip module's tally, flushed about once a second). */
/** Adds uses made outside the crypto API (database key reads) to keys' operation counters. */
export async function addOperationCounts(db: Executor, counts: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1)))
    await db
      .updateTable('kms_key')
      .set((eb) => ({ operations: eb('operations', '+', n) }))
      .where('id', '=', id)
      .execute();
}

export async function addKmipTotals(db: Executor, counts: ReadonlyMap<string, number>): Promise<void> {
  // In id order, so two nodes' flushes cannot deadlock on PostgreSQL.
  for (const [id, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1)))
    await db
      .updateTable('kms_key')
      .set((eb) => ({ kmip_total: eb('kmip_total', '+', n) }))
      .where('id', '=', id)
      .execute();
}
