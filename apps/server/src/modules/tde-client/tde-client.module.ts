import type { KspModule } from '../../platform/module.js';
import { tdeClientRoutes } from './tde-client.routes.js';
import { createTdeClientService } from './tde-client.service.js';

/**
 * TDE and RDM clients (README.md): the client pages' calls over the client module, client
 * groups, guard points; provides `agentConfig` (an agent's configuration document) and
 * `tdeUsage` (what refers to a policy or a profile). Collaborators are looked up lazily.
 */
export const tdeClientModule: KspModule = {
  name: 'tde-client',
  register(ctx) {
    const service = createTdeClientService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      clients: () => ctx.use('clients'),
      policies: () => ctx.use('tdePolicies'),
      keyVault: () => ctx.use('keyVault'),
    });
    ctx.provide('agentConfig', service.agentConfig);
    ctx.provide('tdeUsage', service.tdeUsage);
    tdeClientRoutes(ctx.app, ctx.gate, service);
  },
};
