import { NODE_DOWN_SECONDS, PRODUCT_VERSION } from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { clusterNodes, upsertClusterNode } from './dashboard.store.js';

/**
 * The cluster's nodes as each reports itself: a node writes its row at start and every 30 s
 * (a per-node job); one not seen for `NODE_DOWN_SECONDS` is shown down, with its last report.
 */
export function createClusterNodes(deps: { db: Db; clock: Clock; node: string; startedAt: Date }) {
  const { db, clock, node } = deps;
  return {
    /** This node is alive: its row, made or brought up to date. */
    async report(): Promise<void> {
      const row = {
        name: node,
        version: PRODUCT_VERSION,
        started_at: deps.startedAt.toISOString(),
        last_seen: clock().toISOString(),
      };
      await upsertClusterNode(db, row);
    },

    /** Every node that has reported, up ones first, then by name. */
    async list() {
      const now = clock().getTime();
      const rows = await clusterNodes(db);
      return rows
        .map((r) => {
          const seen = new Date(r.last_seen).getTime();
          return {
            name: r.name,
            version: r.version,
            started_at: r.started_at,
            last_seen: r.last_seen,
            up: now - seen <= NODE_DOWN_SECONDS * 1000,
            uptime_seconds: Math.max(0, Math.floor((seen - new Date(r.started_at).getTime()) / 1000)),
          };
        })
        .sort((a, b) => Number(b.up) - Number(a.up));
    },
  };
}

export type ClusterNodes = ReturnType<typeof createClusterNodes>;
