import { randomUUID } from 'node:crypto';
import {
  ADMINISTRATOR,
  areas,
  isPermission,
  offeredPermissionGroups,
  type api,
  type Input,
  type PermissionNode,
  type QueryInput,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { RoleTable } from '../../platform/db/schema.js';
import { conflict, forbidden, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { roleVisibleTo } from './role.reach.js';
import {
  assignRole,
  countRoleHolders,
  deleteRoles,
  findRole,
  findRoleByName,
  findRoles,
  insertRole,
  listRoles,
  memberIds,
  unassignRole,
  updateRole,
  usersOfRoles,
} from './role.store.js';

const typeDescriptions = {
  'built-in': 'Built-in role: its permissions follow the release and cannot be edited',
  custom: 'Custom role: permissions chosen by an administrator',
} as const;

/** Throws (rolling the transaction back) when no user would hold Administrator any more. */
export async function assertAdministratorsRemain(trx: Executor): Promise<void> {
  if ((await countRoleHolders(trx, ADMINISTRATOR)) === 0) throw stateForbids('role.lastAdministrator');
}

/** The tree the role editor offers: the areas served today (a stored role may hold more). */
export function permissionTree(): PermissionNode[] {
  const verbsOf = (area: string) => [...new Set(areaPermissions(area))];
  return offeredPermissionGroups().map((group) => ({
    key: `group:${group.key}`,
    title: group.key,
    children: group.areas.map((area) => ({
      key: `area:${area}`,
      title: area,
      children: verbsOf(area).map((p) => ({ key: p, title: p })),
    })),
  }));
}

function areaPermissions(area: string): string[] {
  return ['read', 'write', 'use', 'export'].map((v) => `${area}:${v}`).filter(isPermission);
}

export function createRoleService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  domains: ModuleServices['domains'];
  /** The user module's records, asked for at call time (that module is registered later). */
  userRecords: () => ModuleServices['userRecords'];
}) {
  const { db, clock, audit } = deps;
  const { assertManageable, canManageUser } = deps.domains;

  /** Rows as the caller may see them: only holders who are members of its domain are named. */
  async function rows(actor: Actor, roles: RoleTable[]) {
    const all = await usersOfRoles(
      db,
      roles.map((r) => r.id),
    );
    const members = actor.systemScope ? null : new Set(await memberIds(db, actor.domainId));
    const holders = members ? all.filter((h) => members.has(h.id)) : all;
    return roles.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      type: r.type,
      type_description: typeDescriptions[r.type],
      permissions: JSON.parse(r.permissions) as string[],
      users: holders.filter((h) => h.role_id === r.id).map((h) => ({ id: h.id, name: h.username })),
      created_at: r.created_at,
    }));
  }

  /** A role the caller sees (role.reach.ts); another domain's role answers 4040. */
  async function visible(actor: Actor, id: string): Promise<RoleTable> {
    const role = await findRole(db, id);
    if (!role || !roleVisibleTo(actor, role)) throw notFound('role.notFound', { id });
    return role;
  }

  async function one(actor: Actor, id: string) {
    return (await rows(actor, [await visible(actor, id)]))[0]!;
  }

  /** A change to a role reaches every holder: each must be a user the caller may manage. */
  async function assertHoldersInReach(actor: Actor, role: RoleTable): Promise<void> {
    if (actor.systemScope) return;
    for (const holder of await usersOfRoles(db, [role.id])) {
      if (!(await canManageUser(db, actor, holder.id)))
        throw forbidden('role.outOfReach', { name: role.name });
    }
  }

  function checkPermissions(list: string[]): string[] {
    const unknown = list.find((p) => !isPermission(p));
    if (unknown) throw invalid('role.unknownPermission', { permission: unknown });
    // Keep the catalogue's order, no duplicates.
    return areas.flatMap(areaPermissions).filter((p) => list.includes(p));
  }

  async function editable(actor: Actor, id: string) {
    const role = await visible(actor, id);
    if (role.type === 'built-in') throw stateForbids('role.builtIn', { name: role.name });
    await assertHoldersInReach(actor, role);
    return role;
  }

  async function assertUsersInReach(actor: Actor, ids: string[]): Promise<void> {
    for (const id of ids) {
      const user = await deps.userRecords().findUserById(db, id);
      if (user) await assertManageable(db, actor, user);
    }
  }

  /** A write that may lose a race for a name to another one: the unique index answers 4090. */
  async function write(name: string, run: (trx: Executor) => Promise<void>): Promise<void> {
    try {
      await db.transaction().execute(run);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('role.nameTaken', { name });
      throw err;
    }
  }

  return {
    async list(actor: Actor, query: QueryInput<typeof api.role.list>) {
      const { rows: found, total } = await listRoles(
        db,
        { domainId: actor.systemScope ? undefined : actor.domainId, name: query.name },
        query,
      );
      return { data: await rows(actor, found), total };
    },

    permissionTree,

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.role.create>) {
      const permissions = checkPermissions(body.permissions);
      if (await findRoleByName(db, actor.domainId, body.name))
        throw conflict('role.nameTaken', { name: body.name });
      const id = randomUUID();
      await write(body.name, async (trx) => {
        await insertRole(trx, {
          id,
          name: body.name,
          description: body.description,
          type: 'custom',
          permissions: JSON.stringify(permissions),
          domain_id: actor.domainId,
          created_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, {
          action: 'role.create',
          target: body.name,
          details: { permissions: permissions.length },
        });
      });
      return one(actor, id);
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.role.update>) {
      const role = await editable(actor, body.id);
      // The name is checked in the role's own domain (a root administrator may edit any domain's).
      const domainId = role.domain_id ?? actor.domainId;
      if (body.name && body.name !== role.name && (await findRoleByName(db, domainId, body.name))) {
        throw conflict('role.nameTaken', { name: body.name });
      }
      const permissions = body.permissions ? checkPermissions(body.permissions) : undefined;
      await write(body.name ?? role.name, async (trx) => {
        await updateRole(trx, role.id, {
          ...(body.name ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(permissions ? { permissions: JSON.stringify(permissions) } : {}),
        });
        await audit.byCaller(trx, actor, meta, { action: 'role.update', target: body.name ?? role.name });
      });
      return one(actor, role.id);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const found = (await findRoles(db, ids)).filter((r) => roleVisibleTo(actor, r));
      const missing = ids.find((id) => !found.some((r) => r.id === id));
      if (missing) throw notFound('role.notFound', { id: missing });
      const builtIn = found.find((r) => r.type === 'built-in');
      if (builtIn) throw stateForbids('role.builtIn', { name: builtIn.name });
      const holders = await usersOfRoles(db, ids);
      const held = found.find((r) => holders.some((h) => h.role_id === r.id));
      if (held) {
        throw conflict('role.inUse', {
          name: held.name,
          count: holders.filter((h) => h.role_id === held.id).length,
        });
      }
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteRoles(trx, ids);
        for (const r of found) {
          await audit.byCaller(trx, actor, meta, { action: 'role.delete', target: r.name });
        }
        return { deleted };
      });
    },

    async assign(actor: Actor, meta: RequestMeta, body: Input<typeof api.role.assign>) {
      const role = await visible(actor, body.id);
      const users = await deps.userRecords().existingUserIds(db, body.user_ids);
      const missing = body.user_ids.find((id) => !users.includes(id));
      if (missing) throw notFound('user.notFound', { id: missing });
      await assertUsersInReach(actor, users);
      await db.transaction().execute(async (trx) => {
        for (const userId of users) await assignRole(trx, userId, role.id);
        await audit.byCaller(trx, actor, meta, {
          action: 'role.assign',
          target: role.name,
          details: { users: users.length },
        });
      });
      return one(actor, role.id);
    },

    async unassign(actor: Actor, meta: RequestMeta, body: Input<typeof api.role.unassign>) {
      const role = await visible(actor, body.id);
      await assertUsersInReach(actor, await deps.userRecords().existingUserIds(db, body.user_ids));
      await db.transaction().execute(async (trx) => {
        await unassignRole(trx, role.id, body.user_ids);
        await assertAdministratorsRemain(trx);
        await audit.byCaller(trx, actor, meta, {
          action: 'role.unassign',
          target: role.name,
          details: { users: body.user_ids.length },
        });
      });
      return one(actor, role.id);
    },
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
