import type { KspModule } from '../../platform/module.js';
import { domainRoutes } from './domain.routes.js';
import { createDomainService } from './domain.service.js';

export const domainModule: KspModule = {
  name: 'domain',
  register(ctx) {
    domainRoutes(
      ctx.app,
      ctx.gate,
      createDomainService({ db: ctx.db, keyring: ctx.keyring, clock: ctx.clock }),
    );
  },
};
