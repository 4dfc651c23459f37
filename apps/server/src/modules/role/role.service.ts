import { randomUUID } from 'node:crypto';
import { ADMINISTRATOR, areas, isPermission, permissionGroups, type PermissionNode } from '@ksp/contracts';
import { writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { RoleTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { subjectOf } from '../user/user.service.js';
import { existingUserIds } from '../user/user.store.js';
import {
  assignRole,
  countRoleHolders,
  deleteRoles,
  findRole,
  findRoleByName,
  findRoles,
  insertRole,
  listRoles,
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

export function permissionTree(): PermissionNode[] {
  const verbsOf = (area: string) => [...new Set(areaPermissions(area))];
  return permissionGroups.map((group) => ({
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

export function createRoleService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  async function rows(roles: RoleTable[]) {
    const holders = await usersOfRoles(
      db,
      roles.map((r) => r.id),
    );
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

  async function one(id: string) {
    const role = await findRole(db, id);
    if (!role) throw notFound('role.notFound', { id });
    return (await rows([role]))[0]!;
  }

  function checkPermissions(list: string[]): string[] {
    const unknown = list.find((p) => !isPermission(p));
    if (unknown) throw invalid('role.unknownPermission', { permission: unknown });
    // Keep the catalogue's order, no duplicates.
    return areas.flatMap(areaPermissions).filter((p) => list.includes(p));
  }

  async function editable(id: string) {
    const role = await findRole(db, id);
    if (!role) throw notFound('role.notFound', { id });
    if (role.type === 'built-in') throw stateForbids('role.builtIn', { name: role.name });
    return role;
  }

  return {
    async list(query: { page: number; page_size: number; name?: string | undefined }) {
      const { rows: found, total } = await listRoles(db, {
        name: query.name,
        offset: (query.page - 1) * query.page_size,
        limit: query.page_size,
      });
      return { data: await rows(found), total };
    },

    permissionTree,

    async create(
      actor: Actor,
      meta: RequestMeta,
      body: { name: string; description: string; permissions: string[] },
    ) {
      const permissions = checkPermissions(body.permissions);
      if (await findRoleByName(db, body.name)) throw conflict('role.nameTaken', { name: body.name });
      const id = randomUUID();
      await db.transaction().execute(async (trx) => {
        await insertRole(trx, {
          id,
          name: body.name,
          description: body.description,
          type: 'custom',
          permissions: JSON.stringify(permissions),
          created_at: clock().toISOString(),
        });
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'role.create',
          target: body.name,
          result: 'success',
          ip: meta.ip,
          details: { permissions: permissions.length },
        });
      });
      return one(id);
    },

    async update(
      actor: Actor,
      meta: RequestMeta,
      body: {
        id: string;
        name?: string | undefined;
        description?: string | undefined;
        permissions?: string[] | undefined;
      },
    ) {
      const role = await editable(body.id);
      if (body.name && body.name !== role.name && (await findRoleByName(db, body.name))) {
        throw conflict('role.nameTaken', { name: body.name });
      }
      const permissions = body.permissions ? checkPermissions(body.permissions) : undefined;
      await db.transaction().execute(async (trx) => {
        await updateRole(trx, role.id, {
          ...(body.name ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(permissions ? { permissions: JSON.stringify(permissions) } : {}),
        });
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'role.update',
          target: body.name ?? role.name,
          result: 'success',
          ip: meta.ip,
        });
      });
      return one(role.id);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const found = await findRoles(db, ids);
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
          await writeAudit(trx, {
            who: subjectOf(actor),
            action: 'role.delete',
            target: r.name,
            result: 'success',
            ip: meta.ip,
          });
        }
        return { deleted };
      });
    },

    async assign(actor: Actor, meta: RequestMeta, body: { id: string; user_ids: string[] }) {
      const role = await findRole(db, body.id);
      if (!role) throw notFound('role.notFound', { id: body.id });
      const users = await existingUserIds(db, body.user_ids);
      const missing = body.user_ids.find((id) => !users.includes(id));
      if (missing) throw notFound('user.notFound', { id: missing });
      await db.transaction().execute(async (trx) => {
        for (const userId of users) await assignRole(trx, userId, role.id);
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'role.assign',
          target: role.name,
          result: 'success',
          ip: meta.ip,
          details: { users: users.length },
        });
      });
      return one(role.id);
    },

    async unassign(actor: Actor, meta: RequestMeta, body: { id: string; user_ids: string[] }) {
      const role = await findRole(db, body.id);
      if (!role) throw notFound('role.notFound', { id: body.id });
      await db.transaction().execute(async (trx) => {
        await unassignRole(trx, role.id, body.user_ids);
        await assertAdministratorsRemain(trx);
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'role.unassign',
          target: role.name,
          result: 'success',
          ip: meta.ip,
          details: { users: body.user_ids.length },
        });
      });
      return one(role.id);
    },
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
