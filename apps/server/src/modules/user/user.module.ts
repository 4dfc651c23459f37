import type { KspModule } from '../../platform/module.js';
import { rolePermissionsOf } from '../role/role.store.js';
import { createUkeyService } from './ukey.service.js';
import { createUserAdminService } from './user-admin.service.js';
import { userRoutes } from './user.routes.js';
import { createUserService, permissionsOf, type UserService } from './user.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Sign-in and the signed-in user; the system module activates the first administrator with it. */
    users: UserService;
  }
}

export const userModule: KspModule = {
  name: 'user',
  register(ctx) {
    const { db, clock, sessions } = ctx;
    ctx.provide('permissions', { ofUser: permissionsOf, ofRole: rolePermissionsOf });
    const users = createUserService({ db, sessions, clock, directory: ctx.use('ldap') });
    ctx.provide('users', users);
    userRoutes(
      ctx.app,
      ctx.gate,
      users,
      createUserAdminService({ db, clock, sessions, users }),
      createUkeyService({ db, clock, users }),
    );
  },
};
