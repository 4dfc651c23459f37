import type { KspModule } from '../../platform/module.js';
import { quantumRoutes } from './quantum.routes.js';
import { createQuantumService, type QuantumService } from './quantum.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The entropy source on this node (the dashboard reads its status). */
    quantum: QuantumService;
  }
}

/** Settings › quantum: the entropy source mixed into the server's random generator (README.md). */
export const quantumModule: KspModule = {
  name: 'quantum',
  register(ctx) {
    const quantum = createQuantumService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      nodeName: ctx.config.nodeName,
      log: ctx.log,
    });
    ctx.provide('quantum', quantum);
    quantumRoutes(ctx.app, ctx.gate, quantum);
    ctx.onClose(() => quantum.close());
  },
  async start(ctx) {
    await ctx.use('quantum').start();
  },
};
