import { randomUUID } from 'node:crypto';
import { builtInRoles } from '@ksp/contracts';
import { escapeLike, isUniqueViolation, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { RoleTable } from '../../platform/db/schema.js';

/** Creates the built-in roles, and keeps their permissions current with this release. */
export async function ensureBuiltInRoles(db: Executor, now: string): Promise<void> {
  for (const [name, def] of Object.entries(builtInRoles)) {
    const permissions = JSON.stringify(def.permissions);
    const present = await db
      .selectFrom('role')
      .select('id')
      .where('name', '=', name)
      .where('domain_id', 'is', null)
      .executeTakeFirst();
    if (!present) {
      // Another node starting at once may insert it first: its row is as good as this one.
      await db
        .insertInto('role')
        .values({
          id: randomUUID(),
          name,
          description: def.description,
          type: 'built-in',
          permissions,
          domain_id: null,
          created_at: now,
        })
        .execute()
        .catch((err: unknown) => {
          if (!isUniqueViolation(err)) throw err;
        });
    }
    await db
      .updateTable('role')
      .set({ permissions, description: def.description })
      .where('name', '=', name)
      .where('type', '=', 'built-in')
      .execute();
  }
}

/** A built-in role's id by name (custom roles are named per domain: see `findRoleByName`). */
export async function roleIdByName(db: Executor, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('role')
    .select('id')
    .where('name', '=', name)
    .where('domain_id', 'is', null)
    .executeTakeFirst();
  return row?.id;
}

export async function rolesOfUser(
  db: Executor,
  userId: string,
): Promise<{ name: string; permissions: string[] }[]> {
  const rows = await db
    .selectFrom('user_role')
    .innerJoin('role', 'role.id', 'user_role.role_id')
    .select(['role.name', 'role.permissions'])
    .where('user_role.user_id', '=', userId)
    .orderBy('role.name')
    .execute();
  return rows.map((r) => ({ name: r.name, permissions: JSON.parse(r.permissions) as string[] }));
}

export async function assignRole(db: Executor, userId: string, roleId: string): Promise<void> {
  await db
    .insertInto('user_role')
    .values({ user_id: userId, role_id: roleId })
    .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
    .execute();
}

export async function listRoles(
  db: Executor,
  args: { domainId?: string | undefined; name?: string | undefined },
  page: PageQuery,
) {
  let q = db.selectFrom('role');
  // A domain sees the built-in roles and its own custom roles.
  const domainId = args.domainId;
  if (domainId !== undefined)
    q = q.where((eb) => eb.or([eb('domain_id', 'is', null), eb('domain_id', '=', domainId)]));
  if (args.name) q = q.where('name', 'like', `%${escapeLike(args.name)}%`);
  return pagedRows(q, page, (found) => found.selectAll().orderBy('type').orderBy('name'));
}

/** The ids of the domain's members. */
export async function memberIds(db: Executor, domainId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_domain')
    .select('user_id')
    .where('domain_id', '=', domainId)
    .execute();
  return rows.map((r) => r.user_id);
}

export async function usersOfRoles(db: Executor, roleIds: string[]) {
  if (roleIds.length === 0) return [];
  return db
    .selectFrom('user_role')
    .innerJoin('app_user', 'app_user.id', 'user_role.user_id')
    .select(['user_role.role_id', 'app_user.id', 'app_user.username'])
    .where('user_role.role_id', 'in', roleIds)
    .orderBy('app_user.username')
    .execute();
}

export async function findRole(db: Executor, id: string) {
  return db.selectFrom('role').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findRoles(db: Executor, ids: string[]) {
  return db.selectFrom('role').selectAll().where('id', 'in', ids).execute();
}

/**
 * The role a new name would clash with in a domain: a built-in role (seen in every domain) or
 * one of that domain's custom roles. Other domains' roles are not looked at: two domains may
 * each have a role of one name.
 */
export async function findRoleByName(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('role')
    .selectAll()
    .where('name', '=', name)
    .where((eb) => eb.or([eb('domain_id', 'is', null), eb('domain_id', '=', domainId)]))
    .executeTakeFirst();
}

export async function insertRole(db: Executor, row: RoleTable): Promise<void> {
  await db.insertInto('role').values(row).execute();
}

/** Changes a role's fields; no field given changes nothing (an empty `set` is not SQL). */
export async function updateRole(db: Executor, id: string, changes: Partial<Omit<RoleTable, 'id' | 'type'>>) {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('role').set(changes).where('id', '=', id).execute();
}

export async function deleteRoles(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('role').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function unassignRole(db: Executor, roleId: string, userIds: string[]): Promise<void> {
  await db.deleteFrom('user_role').where('role_id', '=', roleId).where('user_id', 'in', userIds).execute();
}

export async function setUserRoles(db: Executor, userId: string, roleIds: string[]): Promise<void> {
  await db.deleteFrom('user_role').where('user_id', '=', userId).execute();
  for (const roleId of roleIds) await assignRole(db, userId, roleId);
}

export async function countRoleHolders(db: Executor, roleName: string): Promise<number> {
  const row = await db
    .selectFrom('user_role')
    .innerJoin('role', 'role.id', 'user_role.role_id')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('role.name', '=', roleName)
    .where('role.type', '=', 'built-in')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The permissions of one role, or null when it no longer exists. */
export async function rolePermissionsOf(db: Executor, roleId: string): Promise<Set<string> | null> {
  const row = await db.selectFrom('role').select('permissions').where('id', '=', roleId).executeTakeFirst();
  return row ? new Set(JSON.parse(row.permissions) as string[]) : null;
}

/** What a user may do: the permissions of every role it holds. */
export async function permissionsOfUser(db: Executor, userId: string): Promise<Set<string>> {
  const roles = await rolesOfUser(db, userId);
  return new Set(roles.flatMap((r) => r.permissions));
}
