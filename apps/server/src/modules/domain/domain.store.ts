import { DEFAULT_PROFILE, ROOT_DOMAIN } from '@ksp/contracts';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { DomainTable } from '../../platform/db/schema.js';

/** The root domain's name is fixed by the contracts (its administrators have system scope). */
export { ROOT_DOMAIN };

export async function insertDomain(db: Executor, row: DomainTable): Promise<void> {
  await db.insertInto('domain').values(row).execute();
}

export async function findDomainByName(db: Executor, name: string) {
  return db.selectFrom('domain').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findDomainById(db: Executor, id: string) {
  return db.selectFrom('domain').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listDomains(
  db: Executor,
  args: { onlyId?: string | undefined; name?: string | undefined },
  page: PageQuery,
) {
  let q = db.selectFrom('domain');
  if (args.onlyId) q = q.where('domain.id', '=', args.onlyId);
  if (args.name) q = q.where('domain.name', 'like', `%${escapeLike(args.name)}%`);
  return pagedRows(q, page, (found) =>
    found
      .select((eb) => [
        'domain.id',
        'domain.name',
        'domain.description',
        'domain.parent_id',
        'domain.created_at',
        eb
          .selectFrom('user_domain')
          .whereRef('user_domain.domain_id', '=', 'domain.id')
          .select((sub) => sub.fn.countAll<string | number>().as('n'))
          .as('users'),
      ])
      .orderBy('domain.created_at')
      .orderBy('domain.name'),
  );
}

/** The names of the domains `ids` (an id not found is left out). */
export async function domainNames(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = ids.length
    ? await db.selectFrom('domain').select(['id', 'name']).where('id', 'in', ids).execute()
    : [];
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The ids of the domains a user belongs to. */
export async function memberDomainIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('user_domain').select('domain_id').where('user_id', '=', userId).execute();
  return rows.map((r) => r.domain_id);
}

export async function rootDomainId(db: Executor): Promise<string | undefined> {
  const row = await db.selectFrom('domain').select('id').where('name', '=', ROOT_DOMAIN).executeTakeFirst();
  return row?.id;
}

export async function countDomains(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('domain')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function addMember(db: Executor, userId: string, domainId: string): Promise<boolean> {
  const result = await db
    .insertInto('user_domain')
    .values({ user_id: userId, domain_id: domainId })
    .onConflict((oc) => oc.columns(['user_id', 'domain_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The user's domains, root first then by name. */
export async function domainsOfUser(db: Executor, userId: string): Promise<{ id: string; name: string }[]> {
  const rows = await db
    .selectFrom('user_domain')
    .innerJoin('domain', 'domain.id', 'user_domain.domain_id')
    .select(['domain.id', 'domain.name'])
    .where('user_domain.user_id', '=', userId)
    .orderBy('domain.name')
    .execute();
  return rows.sort((a, b) => Number(b.name === ROOT_DOMAIN) - Number(a.name === ROOT_DOMAIN));
}

export async function countMembers(db: Executor, domainId: string): Promise<number> {
  const row = await db
    .selectFrom('user_domain')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Objects that live in a domain and stop its deletion: registration tokens, keys, credentials,
 * servers, clients, client groups and guard points, TDE/RDM policies and policy elements,
 * client profiles other than the default one (made on first use), external CA certificates.
 */
export async function countObjects(db: Executor, domainId: string): Promise<number> {
  let total = 0;
  for (const table of [
    'registration_token',
    'kms_key',
    'credential',
    'ssh_server',
    'client',
    'tde_client_group',
    'tde_guard_point',
    'tde_policy',
    'tde_policy_element',
    'cert_external',
  ] as const) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('domain_id', '=', domainId)
      .executeTakeFirst();
    total += Number(row?.n ?? 0);
  }
  const profiles = await db
    .selectFrom('tde_profile')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .where('name', '!=', DEFAULT_PROFILE)
    .executeTakeFirst();
  return total + Number(profiles?.n ?? 0);
}

export async function membersOf(db: Executor, domainId: string) {
  return db
    .selectFrom('user_domain')
    .innerJoin('app_user', 'app_user.id', 'user_domain.user_id')
    .select(['app_user.id', 'app_user.username as name'])
    .where('user_domain.domain_id', '=', domainId)
    .orderBy('app_user.username')
    .execute();
}

export async function updateDomain(
  db: Executor,
  id: string,
  changes: { name?: string; description?: string },
) {
  // No field given changes nothing (an empty `set` is not SQL).
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('domain').set(changes).where('id', '=', id).execute();
}

export async function deleteDomains(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('domain').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
