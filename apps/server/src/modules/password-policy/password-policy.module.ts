import type { KspModule } from '../../platform/module.js';
import { passwordPolicyRoutes } from './password-policy.routes.js';
import { createPasswordPolicyService } from './password-policy.service.js';
import { currentPolicy, ensureDefaultPolicy } from './password-policy.store.js';

/** What other modules read of the password policy. */
const passwordPolicy = { currentPolicy };

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The policy in force; the user module checks passwords against it. */
    passwordPolicy: typeof passwordPolicy;
  }
}

export const passwordPolicyModule: KspModule = {
  name: 'password-policy',
  register(ctx) {
    ctx.provide('passwordPolicy', passwordPolicy);
    passwordPolicyRoutes(
      ctx.app,
      ctx.gate,
      createPasswordPolicyService({ db: ctx.db, clock: ctx.clock, audit: ctx.audit }),
    );
  },
  async start(ctx) {
    await ensureDefaultPolicy(ctx.db, ctx.clock().toISOString());
  },
};
