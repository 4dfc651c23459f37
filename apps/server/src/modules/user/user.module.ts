import type { KspModule } from '../../platform/module.js';
import { createUkeyService, type UkeyService } from './ukey.service.js';
import { createUserAdminService } from './user-admin.service.js';
import { userRoutes } from './user.routes.js';
import { createUserService, type UserService } from './user.service.js';
import {
  countUsers,
  existingUserIds,
  findUserById,
  findUserByName,
  insertUser,
  updateUser,
} from './user.store.js';

/** What other modules read and change of user records (not sign-in: that is `users`). */
const userRecords = { countUsers, existingUserIds, findUserById, findUserByName, insertUser, updateUser };

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Sign-in and the signed-in user; the system module activates the first administrator with it. */
    users: UserService;
    /** User records (roles, the directory and the dashboard use them). */
    userRecords: typeof userRecords;
    /** UKEY binding (the certificates module binds the UKEY certificates it issues). */
    ukeys: UkeyService;
  }
}

export const userModule: KspModule = {
  name: 'user',
  register(ctx) {
    const { db, clock, sessions } = ctx;
    ctx.provide('userRecords', userRecords);
    const domains = ctx.use('domains');
    const roles = ctx.use('roles');
    const users = createUserService({
      db,
      sessions,
      clock,
      audit: ctx.audit,
      directory: ctx.use('ldap'),
      config: ctx.use('config'),
      passwordCost: ctx.config.passwordCost,
      passwordPolicy: ctx.use('passwordPolicy'),
      domains,
      roles,
    });
    ctx.provide('users', users);
    const ukeys = createUkeyService({ db, clock, audit: ctx.audit, users, domains });
    ctx.provide('ukeys', ukeys);
    userRoutes(
      ctx.app,
      ctx.gate,
      users,
      createUserAdminService({
        db,
        clock,
        audit: ctx.audit,
        sessions,
        users,
        domains,
        roles,
        passwordCost: ctx.config.passwordCost,
      }),
      ukeys,
    );
  },
};
