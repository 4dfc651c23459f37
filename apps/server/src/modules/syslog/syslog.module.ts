import { createSecretBox } from '../../platform/keyring/secret-box.js';
import type { KspModule } from '../../platform/module.js';
import { syslogRoutes } from './syslog.routes.js';
import { createSyslogService, type SyslogService } from './syslog.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Syslog receivers and the delivery round. */
    syslog: SyslogService;
  }
}

/** Settings › syslog: server records forwarded to syslog receivers (README.md). */
export const syslogModule: KspModule = {
  name: 'syslog',
  register(ctx) {
    const syslog = createSyslogService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      secrets: createSecretBox({ db: ctx.db, keyring: ctx.keyring }),
      nodeName: ctx.config.nodeName,
      log: ctx.log,
      clientLogs: () => ctx.use('clientLogs'),
    });
    ctx.provide('syslog', syslog);
    syslogRoutes(ctx.app, ctx.gate, syslog);
    // Sealed records are the outbox (log.seal runs every 5 s too); one node delivers at a time.
    ctx.jobs.register({
      name: 'syslog.forward',
      every: 5,
      run: async () => {
        if (ctx.keyring.isOpen) await ctx.use('logs').seal();
        await syslog.forward();
      },
    });
  },
};
