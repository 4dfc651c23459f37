import { DEFAULT_PROFILE } from '@ksp/contracts';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { TdePolicyElementTable, TdePolicyTable, TdeProfileTable } from '../../platform/db/schema.js';

/** What refers to a policy element: a policy, another element (a set) or a profile. */
export type RefKind = 'policy' | 'element' | 'profile';

/** A name filter: rows whose name contains `name` (none: every row). */
const nameLike = (name: string | undefined) => `%${escapeLike(name ?? '')}%`;

// ---- references ---------------------------------------------------------------------------

/** Replaces what `fromId` refers to with `elementIds` (each once). */
export async function setElementRefs(
  db: Executor,
  domainId: string,
  fromKind: RefKind,
  fromId: string,
  elementIds: Iterable<string>,
): Promise<void> {
  await db.deleteFrom('tde_element_ref').where('from_id', '=', fromId).execute();
  const ids = [...new Set(elementIds)];
  if (ids.length)
    await db
      .insertInto('tde_element_ref')
      .values(
        ids.map((element_id) => ({ domain_id: domainId, from_kind: fromKind, from_id: fromId, element_id })),
      )
      .execute();
}

/** The references to each of `ids`, with the referrer's name (policy, set or profile). */
export async function refsTo(db: Executor, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('tde_element_ref')
    .leftJoin('tde_policy', 'tde_policy.id', 'tde_element_ref.from_id')
    .leftJoin('tde_policy_element', 'tde_policy_element.id', 'tde_element_ref.from_id')
    .leftJoin('tde_profile', 'tde_profile.id', 'tde_element_ref.from_id')
    .select([
      'tde_element_ref.element_id',
      'tde_element_ref.from_kind',
      'tde_element_ref.from_id',
      'tde_policy.name as policy_name',
      'tde_policy_element.name as element_name',
      'tde_profile.name as profile_name',
    ])
    .where('tde_element_ref.element_id', 'in', ids)
    .orderBy('tde_element_ref.from_kind')
    .execute();
}

// ---- elements -----------------------------------------------------------------------------

/** The domain's policy elements of the given ids. */
export async function elementsOfIds(db: Executor, domainId: string, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('tde_policy_element')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('id', 'in', ids)
    .execute();
}

export async function findElementRow(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_policy_element')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A page of the domain's elements, by kind then name, filtered by kind and part of the name. */
export async function elementPage(
  db: Executor,
  domainId: string,
  query: PageQuery & { kind?: string | undefined; name?: string | undefined },
) {
  const filtered = db
    .selectFrom('tde_policy_element')
    .where('domain_id', '=', domainId)
    .$if(Boolean(query.kind), (qb) => qb.where('kind', '=', query.kind ?? ''))
    .$if(Boolean(query.name), (qb) => qb.where('name', 'like', nameLike(query.name)));
  return pagedRows(filtered, query, (q) => q.selectAll().orderBy('kind').orderBy('name'));
}

export async function insertElement(db: Executor, row: TdePolicyElementTable): Promise<void> {
  await db.insertInto('tde_policy_element').values(row).execute();
}

export async function updateElement(
  db: Executor,
  domainId: string,
  id: string,
  values: Pick<TdePolicyElementTable, 'name' | 'description' | 'entries' | 'source_list' | 'updated_at'>,
): Promise<void> {
  await db
    .updateTable('tde_policy_element')
    .set(values)
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .execute();
}

/** Deletes an element and what it refers to. */
export async function deleteElement(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('tde_element_ref').where('from_id', '=', id).execute();
  await db.deleteFrom('tde_policy_element').where('id', '=', id).execute();
}

// ---- keys (read-only: the key module's table) ---------------------------------------------

/** The domain's keys of the given ids, with what decides whether TDE may use them. */
export async function keysOfIds(db: Executor, domainId: string, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('kms_key')
    .select(['id', 'name', 'algorithm', 'cte', 'state'])
    .where('domain_id', '=', domainId)
    .where('id', 'in', ids)
    .execute();
}

/** The domain's AES-256 keys with TDE attributes, by name (at most 1000). */
export async function tdeKeyCandidates(db: Executor, domainId: string) {
  return db
    .selectFrom('kms_key')
    .select(['id', 'name', 'algorithm', 'cte', 'state'])
    .where('domain_id', '=', domainId)
    .where('algorithm', '=', 'AES-256')
    .where('cte', 'is not', null)
    .orderBy('name')
    .limit(1000)
    .execute();
}

// ---- policies -----------------------------------------------------------------------------

/** A policy of the domain; `rdmOnly` answers only an RDM one. */
export async function findPolicyRow(db: Executor, domainId: string, id: string, rdmOnly = false) {
  return db
    .selectFrom('tde_policy')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .$if(rdmOnly, (qb) => qb.where('type', '=', 'rdm'))
    .executeTakeFirst();
}

/** A page of the domain's policies by name, filtered by type and part of the name. */
export async function policyPage(
  db: Executor,
  domainId: string,
  query: PageQuery & { type?: string | undefined; name?: string | undefined },
) {
  const filtered = db
    .selectFrom('tde_policy')
    .where('domain_id', '=', domainId)
    .$if(Boolean(query.type), (qb) => qb.where('type', '=', query.type ?? ''))
    .$if(Boolean(query.name), (qb) => qb.where('name', 'like', nameLike(query.name)));
  return pagedRows(filtered, query, (q) => q.selectAll().orderBy('name').orderBy('id'));
}

export async function insertPolicy(db: Executor, row: TdePolicyTable): Promise<void> {
  await db.insertInto('tde_policy').values(row).execute();
}

/** Saves a policy's new content and raises its revision by one (in the statement itself). */
export async function updatePolicy(
  db: Executor,
  domainId: string,
  id: string,
  values: Omit<TdePolicyTable, 'id' | 'domain_id' | 'type' | 'revision' | 'created_at'>,
): Promise<void> {
  await db
    .updateTable('tde_policy')
    .set((eb) => ({ ...values, revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .execute();
}

/** Deletes a policy and what it refers to. */
export async function deletePolicy(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('tde_element_ref').where('from_id', '=', id).execute();
  await db.deleteFrom('tde_policy').where('id', '=', id).execute();
}

/** The domain's policies whose key rules' text names one of `keyIds` (by name; the caller parses). */
export async function policiesMentioningKeys(db: Executor, domainId: string, keyIds: string[]) {
  return db
    .selectFrom('tde_policy')
    .select(['name', 'key_rules'])
    .where('domain_id', '=', domainId)
    .where((eb) => eb.or(keyIds.map((id) => eb('key_rules', 'like', `%${escapeLike(id)}%`))))
    .orderBy('name')
    .execute();
}

export async function policySummaryRow(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_policy')
    .select(['id', 'name', 'type'])
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

// ---- profiles -----------------------------------------------------------------------------

/** Inserts the profile unless the domain has one of its name (the default profile, made on demand). */
export async function insertProfileIfAbsent(db: Executor, row: TdeProfileTable): Promise<void> {
  await db
    .insertInto('tde_profile')
    .values(row)
    .onConflict((oc) => oc.columns(['domain_id', 'name']).doNothing())
    .execute();
}

export async function findProfileRow(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('tde_profile')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** A page of the domain's profiles: the default one first, then by name. */
export async function profilePage(
  db: Executor,
  domainId: string,
  query: PageQuery & { name?: string | undefined },
) {
  const filtered = db
    .selectFrom('tde_profile')
    .where('domain_id', '=', domainId)
    .$if(Boolean(query.name), (qb) => qb.where('name', 'like', nameLike(query.name)));
  return pagedRows(filtered, query, (q) =>
    q
      .selectAll()
      .orderBy((eb) => eb.case().when('name', '=', DEFAULT_PROFILE).then(0).else(1).end())
      .orderBy('name'),
  );
}

export async function insertProfile(db: Executor, row: TdeProfileTable): Promise<void> {
  await db.insertInto('tde_profile').values(row).execute();
}

export async function updateProfile(
  db: Executor,
  id: string,
  values: Pick<TdeProfileTable, 'description' | 'settings' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('tde_profile').set(values).where('id', '=', id).execute();
}

/** Deletes a profile and what it refers to. */
export async function deleteProfile(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('tde_element_ref').where('from_id', '=', id).execute();
  await db.deleteFrom('tde_profile').where('id', '=', id).execute();
}
