import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type {
  TdeAuthBinaryTable,
  TdeClientGroupTable,
  TdeGuardPointTable,
} from '../../platform/db/schema.js';

// ---- clients (the client module's table: what these pages read and set) -------------------

/** A client of the type in the domain. */
export async function findClientRow(db: Executor, domainId: string, id: string, type: string) {
  return db
    .selectFrom('client')
    .select([
      'id',
      'name',
      'type',
      'domain_id',
      'profile',
      'groups',
      'state',
      'communication_enabled',
      'client_locked',
    ])
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .where('type', '=', type)
    .executeTakeFirst();
}

/** The communication and lock flags of clients. */
export async function clientFlags(db: Executor, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('client')
    .select(['id', 'communication_enabled', 'client_locked'])
    .where('id', 'in', ids)
    .execute();
}

export async function clientNames(db: Executor, ids: string[]) {
  return db.selectFrom('client').select(['id', 'name']).where('id', 'in', ids).execute();
}

/** What an agent's configuration reads of its client now: name, profile, lock. */
export async function configClientRow(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('client')
    .select(['name', 'profile', 'client_locked'])
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** Sets columns of a client these pages own (profile, communication, lock, group ids). */
export async function updateClient(
  db: Executor,
  id: string,
  values: { updated_at: string } & Partial<{
    profile: string | null;
    communication_enabled: number;
    client_locked: number;
    groups: string;
  }>,
): Promise<void> {
  await db.updateTable('client').set(values).where('id', '=', id).execute();
}

/** How many records of `action` each client certificate serial sent since `since`. */
export async function clientLogCounts(
  db: Executor,
  domainId: string,
  action: string,
  since: string,
  serials: string[],
) {
  return db
    .selectFrom('client_log')
    .select(['client_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('domain_id', '=', domainId)
    .where('action', '=', action)
    .where('received_at', '>=', since)
    .where('client_id', 'in', serials)
    .groupBy('client_id')
    .execute();
}

/** How many clients (not deleted) and groups of the domain name the profile. */
export async function profileUserCount(db: Executor, domainId: string, profile: string): Promise<number> {
  const clients = await db
    .selectFrom('client')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .where('profile', '=', profile)
    .where('state', '!=', 'deleted')
    .executeTakeFirst();
  const groups = await db
    .selectFrom('tde_client_group')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .where('profile', '=', profile)
    .executeTakeFirst();
  return Number(clients?.n ?? 0) + Number(groups?.n ?? 0);
}

// ---- groups and members -------------------------------------------------------------------

export async function findGroupRow(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_client_group')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A group with how many members and guard points it has. */
export async function groupWithCounts(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_client_group as g')
    .selectAll('g')
    .select((eb) => [
      eb
        .selectFrom('tde_client_group_member as m')
        .whereRef('m.group_id', '=', 'g.id')
        .select((e) => e.fn.countAll<string | number>().as('n'))
        .as('members'),
      eb
        .selectFrom('tde_guard_point as p')
        .whereRef('p.group_id', '=', 'g.id')
        .select((e) => e.fn.countAll<string | number>().as('n'))
        .as('guard_points'),
    ])
    .where('g.id', '=', id)
    .where('g.domain_id', '=', domainId)
    .executeTakeFirstOrThrow();
}

/** Whether another group of the domain (not `except`) has the name. */
export async function groupNameUsed(db: Executor, domainId: string, name: string, except?: string) {
  let q = db
    .selectFrom('tde_client_group')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name);
  if (except) q = q.where('id', '!=', except);
  return Boolean(await q.executeTakeFirst());
}

/** A page of the domain's group ids by name, filtered by part of the name. */
export async function groupIdPage(
  db: Executor,
  domainId: string,
  query: PageQuery & { name?: string | undefined },
) {
  let filtered = db.selectFrom('tde_client_group').where('domain_id', '=', domainId);
  if (query.name) filtered = filtered.where('name', 'like', `%${escapeLike(query.name)}%`);
  return pagedRows(filtered, query, (q) => q.select('id').orderBy('name'));
}

export async function insertGroup(db: Executor, row: TdeClientGroupTable): Promise<void> {
  await db.insertInto('tde_client_group').values(row).execute();
}

export async function updateGroup(
  db: Executor,
  id: string,
  values: Pick<TdeClientGroupTable, 'name' | 'description' | 'profile' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('tde_client_group').set(values).where('id', '=', id).execute();
}

/** Deletes a group (no members left) and its authorised binaries. */
export async function deleteGroup(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('tde_auth_binary').where('group_id', '=', id).execute();
  await db.deleteFrom('tde_client_group').where('id', '=', id).execute();
}

/** The groups of clients with each membership's client, in membership order. */
export async function memberships(db: Executor, domainId: string, clientIds: readonly string[]) {
  if (clientIds.length === 0) return [];
  return db
    .selectFrom('tde_client_group_member as m')
    .innerJoin('tde_client_group as g', 'g.id', 'm.group_id')
    .select(['m.client_id', 'g.id', 'g.name', 'g.profile'])
    .where('m.domain_id', '=', domainId)
    .where('m.client_id', 'in', [...clientIds])
    .orderBy('m.added_at')
    .orderBy('g.name')
    .execute();
}

export async function memberIds(db: Executor, groupId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tde_client_group_member')
    .select('client_id')
    .where('group_id', '=', groupId)
    .execute();
  return rows.map((r) => r.client_id);
}

/** The members among `clientIds`, with their names. */
export async function membersAmong(db: Executor, groupId: string, clientIds: readonly string[]) {
  return db
    .selectFrom('tde_client_group_member as m')
    .innerJoin('client as c', 'c.id', 'm.client_id')
    .select(['c.id', 'c.name'])
    .where('m.group_id', '=', groupId)
    .where('m.client_id', 'in', [...clientIds])
    .execute();
}

export async function insertMember(
  db: Executor,
  row: { group_id: string; client_id: string; domain_id: string; added_at: string },
): Promise<void> {
  await db.insertInto('tde_client_group_member').values(row).execute();
}

/** Removes one client from the group, or (no client) every member. */
export async function deleteMembers(db: Executor, groupId: string, clientId?: string): Promise<void> {
  await db
    .deleteFrom('tde_client_group_member')
    .where('group_id', '=', groupId)
    .$if(clientId !== undefined, (q) => q.where('client_id', '=', clientId!))
    .execute();
}

// ---- guard points -------------------------------------------------------------------------

/** A guard point of the domain, with its client's type and name (none for a group's). */
export async function findGuardPointRow(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('tde_guard_point as g')
    .leftJoin('client as c', 'c.id', 'g.client_id')
    .selectAll('g')
    .select(['c.type as client_type', 'c.name as client_name'])
    .where('g.id', '=', id)
    .where('g.domain_id', '=', domainId)
    .executeTakeFirst();
}

/** The guard points of clients (`client_id`) or of groups (`group_id`), by path. */
export async function guardPointsOf(
  db: Executor,
  domainId: string,
  owner: 'client_id' | 'group_id',
  ids: readonly string[],
): Promise<TdeGuardPointTable[]> {
  return db
    .selectFrom('tde_guard_point')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where(owner, 'in', [...ids])
    .orderBy('path')
    .execute();
}

/** The paths of a group's guard points. */
export async function groupGuardPointPaths(db: Executor, groupId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tde_guard_point')
    .select('path')
    .where('group_id', '=', groupId)
    .execute();
  return rows.map((r) => r.path);
}

export async function insertGuardPoint(db: Executor, row: TdeGuardPointTable): Promise<void> {
  await db.insertInto('tde_guard_point').values(row).execute();
}

export async function setGuardPointEnabled(
  db: Executor,
  id: string,
  enabled: number,
  at: string,
): Promise<void> {
  await db.updateTable('tde_guard_point').set({ enabled, updated_at: at }).where('id', '=', id).execute();
}

export async function deleteGuardPoint(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('tde_guard_point').where('id', '=', id).execute();
}

/** How many guard points (of clients and groups) of the domain name the policy. */
export async function guardPointCountUsing(
  db: Executor,
  domainId: string,
  policyId: string,
): Promise<number> {
  const row = await db
    .selectFrom('tde_guard_point')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('domain_id', '=', domainId)
    .where('policy_id', '=', policyId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

// ---- authorised binaries ------------------------------------------------------------------

/** The authorised binaries of clients (`client_id`) or of groups (`group_id`), by position. */
export async function authBinariesOf(
  db: Executor,
  domainId: string,
  owner: 'client_id' | 'group_id',
  ids: readonly string[],
): Promise<TdeAuthBinaryTable[]> {
  return db
    .selectFrom('tde_auth_binary')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where(owner, 'in', [...ids])
    .orderBy('position')
    .execute();
}

/** Replaces the list of one client (`client_id`) or one group (`group_id`) with `rows`. */
export async function replaceAuthBinaries(
  db: Executor,
  domainId: string,
  owner: 'client_id' | 'group_id',
  ownerId: string,
  rows: TdeAuthBinaryTable[],
): Promise<void> {
  await db
    .deleteFrom('tde_auth_binary')
    .where('domain_id', '=', domainId)
    .where(owner, '=', ownerId)
    .execute();
  if (rows.length) await db.insertInto('tde_auth_binary').values(rows).execute();
}

/** The domain's signature sets (policy elements of kind "signature") of the given ids. */
export async function signatureSetRows(db: Executor, domainId: string, ids: string[]) {
  return db
    .selectFrom('tde_policy_element')
    .select(['id', 'name', 'entries'])
    .where('domain_id', '=', domainId)
    .where('kind', '=', 'signature')
    .where('id', 'in', ids)
    .execute();
}
