import type { KspModule } from '../../platform/module.js';
import { tdePolicyRoutes } from './tde-policy.routes.js';
import { createTdePolicyService } from './tde-policy.service.js';

/** TDE and RDM policies, policy elements and client profiles; offers `tdePolicies` (README.md). */
export const tdePolicyModule: KspModule = {
  name: 'tde-policy',
  register(ctx) {
    const service = createTdePolicyService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      // The TDE client module (guard points, clients) is optional: absent, nothing uses a policy.
      usage: () => ctx.maybeUse('tdeUsage'),
      // Syslog TLS client keys of profiles are sealed under the domain KEK.
      keyring: ctx.keyring,
    });
    ctx.provide('tdePolicies', service.catalog);
    tdePolicyRoutes(ctx.app, ctx.gate, service);
  },
};
