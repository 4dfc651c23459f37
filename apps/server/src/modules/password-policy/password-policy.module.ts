import type { KspModule } from '../../platform/module.js';
import { passwordPolicyRoutes } from './password-policy.routes.js';
import { createPasswordPolicyService } from './password-policy.service.js';
import { ensureDefaultPolicy } from './password-policy.store.js';

export const passwordPolicyModule: KspModule = {
  name: 'password-policy',
  register(ctx) {
    passwordPolicyRoutes(ctx.app, ctx.gate, createPasswordPolicyService({ db: ctx.db, clock: ctx.clock }));
  },
  async start(ctx) {
    await ensureDefaultPolicy(ctx.db, ctx.clock().toISOString());
  },
};
