import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { ClusterNodes } from './cluster-nodes.js';
import type { DashboardService } from './dashboard.service.js';

export function dashboardRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  dashboard: DashboardService,
  nodes: ClusterNodes,
): void {
  // Readiness and liveness for load balancers (docs/cluster.md#health-checks).
  registerCall(app, gate, api.system.ready, () => nodes.ready());
  registerCall(app, gate, api.system.live, () => Promise.resolve(nodes.live()));
  registerCall(app, gate, api.dashboard.summary, ({ actor }) => dashboard.summary(actor));
  registerCall(app, gate, api.dashboard.operations, ({ actor, query }) =>
    dashboard.operations(actor, query.range),
  );
}
