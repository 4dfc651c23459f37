import type { KspModule } from '../../platform/module.js';
import { alarmRoutes } from './alarm.routes.js';
import { createAlarmService, type AlarmService, type ClientLogCounter } from './alarm.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Alarm rules, their evaluation round, and the alarms they raise. */
    alarms: AlarmService;
  }
}

/** Seconds between evaluation rounds (each rule counts its own interval). */
export const ALARM_EVALUATE_EVERY = 10;

/** Alarms on the server and client records: rules, the evaluation job, the alarm list (README.md). */
export const alarmModule: KspModule = {
  name: 'alarm',
  register(ctx) {
    const alarms = createAlarmService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      log: ctx.log,
      domainNames: (ids) => ctx.use('domains').domainNames(ctx.db, ids),
      // The client log store is another module's, which may not be there: looked up by name at
      // each round (it may register after this module), absent means client rules wait.
      clientLogs: () => {
        try {
          return (ctx.use as unknown as (name: string) => ClientLogCounter | undefined)('clientLogs');
        } catch {
          return undefined;
        }
      },
    });
    ctx.provide('alarms', alarms);
    alarmRoutes(ctx.app, ctx.gate, alarms);
    ctx.jobs.register({
      name: 'alarm.evaluate',
      every: ALARM_EVALUATE_EVERY,
      run: async () => void (await alarms.evaluate()),
    });
  },
};
