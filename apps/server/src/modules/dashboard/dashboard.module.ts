import type { KspModule } from '../../platform/module.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { createDashboardService } from './dashboard.service.js';

export const dashboardModule: KspModule = {
  name: 'dashboard',
  register(ctx) {
    const dashboard = createDashboardService({
      db: ctx.db,
      engine: ctx.engine,
      nodeName: ctx.config.nodeName,
      startedAt: ctx.clock(),
      clock: ctx.clock,
      sessions: ctx.sessions,
      auditLog: ctx.use('auditLog'),
      domains: ctx.use('domains'),
      userRecords: ctx.use('userRecords'),
      certs: ctx.use('certs'),
    });
    dashboardRoutes(ctx.app, ctx.gate, dashboard);
  },
};
