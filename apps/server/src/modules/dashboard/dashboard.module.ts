import type { KspModule } from '../../platform/module.js';
import { createClusterNodes, type ClusterNodes } from './cluster-nodes.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { createDashboardService } from './dashboard.service.js';
import { createOpCounter, type OpCounter } from './op-counter.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The operation counters the key module adds to on every answered operation (README.md). */
    opCounter: OpCounter;
    /** This node's report to the node list (made at start, then by a job). */
    clusterNodes: ClusterNodes;
  }
}

/** Seconds between two flushes of this node's operation counters. */
const FLUSH_SECONDS = 10;
/** Seconds between two reports of this node to the node list. */
const REPORT_SECONDS = 30;

/** The dashboard: figures of the running system, operation counters, the cluster's nodes (README.md). */
export const dashboardModule: KspModule = {
  name: 'dashboard',
  register(ctx) {
    const node = ctx.config.nodeName;
    const startedAt = ctx.clock();
    const opCounter = createOpCounter({ db: ctx.db, clock: ctx.clock, node });
    const nodes = createClusterNodes({
      db: ctx.db,
      engine: ctx.engine,
      clock: ctx.clock,
      node,
      startedAt,
      readiness: () => ctx.use('readiness')(),
    });
    ctx.provide('opCounter', opCounter);
    ctx.provide('clusterNodes', nodes);
    // Per-node jobs: each node's name makes a lease of its own, so every node runs them.
    ctx.jobs.register({
      name: `dashboard.op-flush:${node}`,
      every: FLUSH_SECONDS,
      run: async () => {
        await opCounter.flush();
      },
    });
    ctx.jobs.register({
      name: `dashboard.node-report:${node}`,
      every: REPORT_SECONDS,
      run: () => nodes.report(),
    });
    // Once a day for the cluster: buckets older than the 7-day chart needs.
    ctx.jobs.register({
      name: 'dashboard.op-prune',
      cron: '17 3 * * *',
      run: async () => {
        await opCounter.prune();
      },
    });
    const dashboard = createDashboardService({
      db: ctx.db,
      engine: ctx.engine,
      nodeName: node,
      startedAt,
      clock: ctx.clock,
      sessions: ctx.sessions,
      auditLog: ctx.use('auditLog'),
      domains: ctx.use('domains'),
      userRecords: ctx.use('userRecords'),
      certs: ctx.use('certs'),
      keyFigures: ctx.use('keyFigures'),
      quantum: ctx.use('quantum'),
      license: ctx.use('license'),
      hsm: ctx.use('hsm'),
      opCounter,
      nodes,
    });
    dashboardRoutes(ctx.app, ctx.gate, dashboard, nodes);
  },
  async start(ctx) {
    await ctx.use('clusterNodes').report();
  },
  async stop(ctx) {
    // The counts not yet written: the jobs have stopped, the database is still open.
    await ctx
      .use('opCounter')
      .flush()
      .catch((err: unknown) =>
        ctx.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'operation counters not flushed',
        ),
      );
  },
};
