import type { KspModule } from '../../platform/module.js';
import { clientLogRoutes } from './client-log.routes.js';
import { createClientLogService, type ClientLogService } from './client-log.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The client records: agents' uploads, their reading, counts for alarms, syslog's reads. */
    clientLogs: ClientLogService;
  }
}

/** The log page's client records: what agents upload, listed, exported and forwarded (README.md). */
export const clientLogModule: KspModule = {
  name: 'client-log',
  register(ctx) {
    const clientLogs = createClientLogService({
      db: ctx.db,
      engine: ctx.engine,
      copyOut: ctx.copyOut,
      clock: ctx.clock,
      audit: ctx.audit,
      certs: () => ctx.use('certs'),
      domainNames: (ids) => ctx.use('domains').domainNames(ctx.db, ids),
    });
    ctx.provide('clientLogs', clientLogs);
    clientLogRoutes(ctx.app, ctx.gate, clientLogs);
    ctx.jobs.register({
      name: 'client-log.jti-sweep',
      every: 60,
      run: async () => void (await clientLogs.sweepJtis()),
    });
    ctx.jobs.register({
      name: 'client-log.retention',
      cron: '27 3 * * *',
      run: async () => void (await clientLogs.retain(ctx.config.logRetentionDays)),
    });
  },
};
