import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { DashboardService } from './dashboard.service.js';

export function dashboardRoutes(app: FastifyInstance, gate: Gatekeeper, dashboard: DashboardService): void {
  registerCall(app, gate, api.dashboard.summary, ({ actor }) => dashboard.summary(actor));
  registerCall(app, gate, api.dashboard.operations, ({ actor, query }) =>
    dashboard.operations(actor, query.range),
  );
}
