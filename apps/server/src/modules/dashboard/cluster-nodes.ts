import { Code, NODE_DOWN_SECONDS, PRODUCT_VERSION } from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Engine } from '../../platform/db/database.js';
import { isStorageUnavailable } from '../../platform/db/storage-health.js';
import { UnavailableError } from '../../platform/errors.js';
import type { Readiness } from '../../platform/http/route.js';
import { clusterNodes, serverAddress, upsertClusterNode } from './dashboard.store.js';

/**
 * The cluster's nodes as each reports itself: a node writes its row at start and every 30 s
 * (a per-node job); one not seen for `NODE_DOWN_SECONDS` is shown down, with its last report.
 */
export function createClusterNodes(deps: {
  db: Db;
  engine: Engine;
  clock: Clock;
  node: string;
  startedAt: Date;
  readiness: () => Promise<Readiness>;
}) {
  const { db, clock, node } = deps;
  const row = () => ({
    name: node,
    version: PRODUCT_VERSION,
    started_at: deps.startedAt.toISOString(),
    last_seen: clock().toISOString(),
  });
  let probe: Promise<{ ready: true; node: string; database: string }> | null = null;

  /** One write (this node's row, its last contact) and the server it reached, or the refusal. */
  async function check() {
    const state = await deps.readiness();
    if (!state.ready) throw new UnavailableError(Code.NOT_INITIALIZED, state.reason, state.params);
    try {
      const database = await db.transaction().execute(async (trx) => {
        await upsertClusterNode(trx, row());
        return serverAddress(trx, deps.engine);
      });
      return { ready: true as const, node, database };
    } catch (err) {
      if (isStorageUnavailable(err))
        throw new UnavailableError(Code.STORAGE_UNAVAILABLE, 'error.storageUnavailable', { seconds: 5 });
      throw err;
    }
  }

  return {
    /**
     * Readiness (`GET /v1/ksp/system/ready`): ready only when the node can serve and write to its
     * database, proven by writing its own row (which is also its last contact in the node list).
     * Checks that arrive while one runs share its answer.
     */
    ready() {
      probe ??= check().finally(() => {
        probe = null;
      });
      return probe;
    },

    live: () => ({
      node,
      uptime_seconds: Math.max(0, Math.floor((Date.now() - deps.startedAt.getTime()) / 1000)),
    }),

    /** This node is alive: its row, made or brought up to date. */
    async report(): Promise<void> {
      await upsertClusterNode(db, row());
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
