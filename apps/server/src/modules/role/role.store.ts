import { randomUUID } from 'node:crypto';
import { builtInRoles } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';

/** Creates the built-in roles, and keeps their permissions current with this release. */
export async function ensureBuiltInRoles(db: Executor, now: string): Promise<void> {
  for (const [name, def] of Object.entries(builtInRoles)) {
    const permissions = JSON.stringify(def.permissions);
    await db
      .insertInto('role')
      .values({
        id: randomUUID(),
        name,
        description: def.description,
        type: 'built-in',
        permissions,
        created_at: now,
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    await db
      .updateTable('role')
      .set({ permissions, description: def.description })
      .where('name', '=', name)
      .where('type', '=', 'built-in')
      .execute();
  }
}

export async function roleIdByName(db: Executor, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('role').select('id').where('name', '=', name).executeTakeFirst();
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
