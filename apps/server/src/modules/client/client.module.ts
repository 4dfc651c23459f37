import { onClientConfigBump } from '../../platform/agent-config.js';
import '../../platform/cert-revocations.js';
import type { KspModule } from '../../platform/module.js';
import { startAgentListener, type AgentListener } from './agent-listener.js';
import { createConfigWaiters } from './client.config.js';
import { clientRoutes } from './client.routes.js';
import { createClientService, type ClientService } from './client.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Clients of every type: the TDE and RDM pages (modules/tde-client) reuse their lifecycle. */
    clients: ClientService;
  }
}

/** The agent listener of each running server (tests run several in one process). */
const listeners = new WeakMap<object, AgentListener>();

/** Clients: enrolment with a registration token, signed agent heartbeats, the config channel, the KADP client pages' calls (README.md). */
export const clientModule: KspModule = {
  name: 'client',
  // The agent listener (KSP_AGENT_PORT, docs/api.md "Agent listener"): heartbeats on a thread of their own.
  async start(ctx) {
    if (ctx.config.agentPort === null) return;
    if (!ctx.connection) {
      ctx.log.warn('KSP_AGENT_PORT is ignored: an in-memory database has no second connection');
      return;
    }
    const listener = await startAgentListener({
      data: {
        host: ctx.config.host,
        wantedPort: ctx.config.agentPort,
        tls: ctx.config.tls,
        connection: ctx.connection,
      },
      clients: ctx.use('clients'),
      readiness: () => ctx.gate.readiness(),
      log: ctx.log,
    });
    listeners.set(ctx.app, listener);
    ctx.log.info({ port: listener.port }, 'agent listener');
  },
  async stop(ctx) {
    await listeners.get(ctx.app)?.stop();
    listeners.delete(ctx.app);
  },
  register(ctx) {
    const waiters = createConfigWaiters(ctx.db);
    const stopListening = onClientConfigBump((domainId) => waiters.poke(domainId));
    const service = createClientService({
      db: ctx.db,
      journal: ctx.journal,
      clock: ctx.clock,
      audit: ctx.audit,
      certs: () => ctx.use('certs'),
      tokens: () => ctx.use('registrationTokens'),
      license: () => ctx.use('license'),
      roles: () => ctx.use('roles'),
      domains: () => ctx.use('domains'),
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
