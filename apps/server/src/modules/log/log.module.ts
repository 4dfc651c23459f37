import type { KspModule } from '../../platform/module.js';
import { logRoutes } from './log.routes.js';
import { createLogService } from './log.service.js';

/** The log page's server records: list, detail and streamed export of the audit trail (README.md). */
export const logModule: KspModule = {
  name: 'log',
  register(ctx) {
    logRoutes(ctx.app, ctx.gate, createLogService({ db: ctx.db, clock: ctx.clock }));
  },
};
