import type { KspModule } from '../../platform/module.js';
import { clientRoutes } from './client.routes.js';
import { createClientService } from './client.service.js';

/** Clients: enrolment with a registration token, signed agent heartbeats, the KADP client pages' calls (README.md). */
export const clientModule: KspModule = {
  name: 'client',
  register(ctx) {
    const service = createClientService({
      db: ctx.db,
      clock: ctx.clock,
      certs: () => ctx.use('certs'),
      tokens: () => ctx.use('registrationTokens'),
      license: () => ctx.use('license'),
    });
    clientRoutes(ctx.app, ctx.gate, service);
  },
};
