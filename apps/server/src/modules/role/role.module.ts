import type { KspModule } from '../../platform/module.js';
import { roleRoutes } from './role.routes.js';
import { createRoleService } from './role.service.js';
import { ensureBuiltInRoles } from './role.store.js';

export const roleModule: KspModule = {
  name: 'role',
  register(ctx) {
    roleRoutes(ctx.app, ctx.gate, createRoleService({ db: ctx.db, clock: ctx.clock }));
  },
  async start(ctx) {
    await ensureBuiltInRoles(ctx.db, ctx.clock().toISOString());
  },
};
