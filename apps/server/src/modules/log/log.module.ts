import type { KspModule } from '../../platform/module.js';
import { logRoutes } from './log.routes.js';
import { createLogService, type LogService } from './log.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The server records: sealing into chains, verification, retention. */
    logs: LogService;
  }
}

/** The log page's server records: list, detail and streamed export of the audit trail (README.md). */
export const logModule: KspModule = {
  name: 'log',
  register(ctx) {
    let key: Buffer | null = null;
    const logs = createLogService({
      db: ctx.db,
      engine: ctx.engine,
      copyOut: ctx.copyOut,
      clock: ctx.clock,
      audit: ctx.audit,
      // Derived once the keyring is open (after unsealing), kept for the process's life.
      chainKey: () => (key ??= ctx.keyring.isOpen ? ctx.keyring.deriveKey('audit-chain') : null),
      domainNames: (ids) => ctx.use('domains').domainNames(ctx.db, ids),
    });
    ctx.provide('logs', logs);
    logRoutes(ctx.app, ctx.gate, logs);
    ctx.jobs.register({ name: 'log.seal', every: 5, run: async () => void (await logs.seal()) });
    ctx.jobs.register({
      name: 'log.retention',
      cron: '17 3 * * *',
      run: async () => void (await logs.retain(ctx.config.logRetentionDays)),
    });
    ctx.onClose(() => {
      key?.fill(0);
    });
  },
};
