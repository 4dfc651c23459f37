import { onClientConfigBump } from '../../platform/agent-config.js';
import '../../platform/cert-revocations.js';
import type { KspModule } from '../../platform/module.js';
import { createConfigWaiters } from './client.config.js';
import { clientRoutes } from './client.routes.js';
import { createClientService, type ClientService } from './client.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Clients of every type: the TDE and RDM pages (modules/tde-client) reuse their lifecycle. */
    clients: ClientService;
  }
}

/** Clients: enrolment with a registration token, signed agent heartbeats, the config channel, the KADP client pages' calls (README.md). */
export const clientModule: KspModule = {
  name: 'client',
  register(ctx) {
    const waiters = createConfigWaiters(ctx.db);
    const stopListening = onClientConfigBump((domainId) => waiters.poke(domainId));
    const service = createClientService({
      db: ctx.db,
      journal: ctx.journal,
      clock: ctx.clock,
      certs: () => ctx.use('certs'),
      tokens: () => ctx.use('registrationTokens'),
      license: () => ctx.use('license'),
      agentConfig: () => ctx.maybeUse('agentConfig'),
      waiters,
    });
    ctx.provide('clients', service);
    ctx.provide('certificateRevocations', {
      changed: (trx, certId, revoked, at) => service.certificateChanged(trx, certId, revoked, at),
    });
    clientRoutes(ctx.app, ctx.gate, service);
    // Held config calls answer (unchanged) before the server stops accepting and closes.
    ctx.app.addHook('preClose', (done) => {
      stopListening();
      waiters.endAll();
      done();
    });
  },
};
