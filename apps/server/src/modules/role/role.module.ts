import type { KspModule } from '../../platform/module.js';
import { assertRolesVisible, roleVisibleTo } from './role.reach.js';
import { roleRoutes } from './role.routes.js';
import { assertAdministratorsRemain, createRoleService } from './role.service.js';
import {
  ensureBuiltInRoles,
  findRoles,
  permissionsOfUser,
  roleIdByName,
  rolePermissionsOf,
  rolesOfUser,
  setUserRoles,
} from './role.store.js';

/** What other modules read and change of roles and role grants, and which roles a caller sees. */
const roleDirectory = {
  findRoles,
  permissionsOfUser,
  roleIdByName,
  rolePermissionsOf,
  rolesOfUser,
  setUserRoles,
  assertAdministratorsRemain,
  assertRolesVisible,
  roleVisibleTo,
};

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Roles and grants (users, the directory and set-up use them). */
    roles: typeof roleDirectory;
  }
}

export const roleModule: KspModule = {
  name: 'role',
  register(ctx) {
    ctx.provide('roles', roleDirectory);
    ctx.provide('permissions', { ofUser: permissionsOfUser, ofRole: rolePermissionsOf });
    const service = createRoleService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      domains: ctx.use('domains'),
      // The user module is listed after this one (it grants roles): read at call time.
      userRecords: () => ctx.use('userRecords'),
    });
    roleRoutes(ctx.app, ctx.gate, service);
  },
  async start(ctx) {
    await ensureBuiltInRoles(ctx.db, ctx.clock().toISOString());
  },
};
