import {
  isAlgorithmId,
  keyFamilies,
  keyFamilyOf,
  keyStateLabels,
  OP_BUCKET_SECONDS,
  opClasses,
  PRODUCT_VERSION,
  ROTATION_DUE_DAYS,
  stateLabel,
  type AlgorithmId,
  type KeyFamily,
  type KeyState,
  type KeyStateLabel,
  type OpClass,
  type OpRange,
} from '@ksp/contracts';
import type { Clock, SessionService } from '../../platform/auth/session.service.js';
import type { Db, Engine } from '../../platform/db/database.js';
import type { Actor } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import type { ClusterNodes } from './cluster-nodes.js';
import { lastLocalBackup } from './dashboard.store.js';
import type { OpCounter } from './op-counter.js';

const DAY_MS = 86_400_000;
const RANGE_MINUTES: Record<OpRange, number> = { '24h': 24 * 60, '7d': 7 * 24 * 60 };

/** Keys by state label, by family and by algorithm, from the tally's (state, algorithm) counts. */
function keyBreakdown(rows: { state: string; algorithm: string; count: number }[]) {
  const byState = new Map<KeyStateLabel, number>(keyStateLabels.map((s) => [s, 0]));
  const byFamily = new Map<KeyFamily, number>(keyFamilies.map((f) => [f, 0]));
  const byAlgorithm = new Map<string, number>();
  let total = 0;
  for (const { state, algorithm, count } of rows) {
    if (count === 0) continue;
    total += count;
    const label = stateLabel(state as KeyState);
    byState.set(label, (byState.get(label) ?? 0) + count);
    // Destroyed keys have no material left: they count in the states only.
    if (label === 'destroyed' || !isAlgorithmId(algorithm)) continue;
    const family = keyFamilyOf(algorithm);
    byFamily.set(family, byFamily.get(family)! + count);
    byAlgorithm.set(algorithm, (byAlgorithm.get(algorithm) ?? 0) + count);
  }
  return {
    total,
    by_state: [...byState].map(([state, count]) => ({ state, count })),
    by_family: [...byFamily].map(([family, count]) => ({ family, count })),
    by_algorithm: [...byAlgorithm]
      .map(([algorithm, count]) => ({ algorithm, family: keyFamilyOf(algorithm as AlgorithmId), count }))
      .sort((a, b) => b.count - a.count || a.algorithm.localeCompare(b.algorithm)),
  };
}

/**
 * Real figures of the running system. With system scope (root) the whole system's;
 * otherwise those of the caller's domain only (members, sessions, audit).
 */
export function createDashboardService(deps: {
  db: Db;
  engine: Engine;
  nodeName: string;
  startedAt: Date;
  clock: Clock;
  sessions: SessionService;
  auditLog: ModuleServices['auditLog'];
  domains: ModuleServices['domains'];
  userRecords: ModuleServices['userRecords'];
  certs: ModuleServices['certs'];
  keyFigures: ModuleServices['keyFigures'];
  quantum: ModuleServices['quantum'];
  license: ModuleServices['license'];
  hsm: ModuleServices['hsm'];
  opCounter: OpCounter;
  nodes: ClusterNodes;
}) {
  const { db, clock } = deps;
  const { countAudit, countFailedLogins, recentAudit } = deps.auditLog;
  const { countDomains, countMembers } = deps.domains;
  const { countUsers } = deps.userRecords;
  /** The last completed backup made on this installation (of the domain, outside system scope). */
  const lastBackup = async (domainId: string | null) => {
    const row = await lastLocalBackup(db, domainId);
    return row ? { id: row.id, scope: row.scope, finished_at: row.finished_at! } : null;
  };
  const hsmFigure = async () => {
    const status = await deps.hsm.status();
    return { root_provider: status.root_provider, token_label: status.bound ? status.token_label : null };
  };
  return {
    async summary(actor: Actor) {
      // Outside system scope every figure is the current domain's: other domains are not counted.
      const scope = actor.systemScope ? null : actor.domainId;
      const now = clock();
      const iso = (ms: number) => new Date(now.getTime() + ms).toISOString();
      const [
        users,
        domains,
        audit,
        recent,
        sessions,
        certificates,
        certs60,
        certs90,
        tally,
        rotation,
        failedLogins,
        nodes,
      ] = await Promise.all([
        scope ? countMembers(db, scope) : countUsers(db),
        scope ? 1 : countDomains(db),
        countAudit(db, scope),
        recentAudit(db, scope, 10),
        deps.sessions.countActive(scope),
        deps.certs.expiringFigures(scope),
        deps.certs.expiringFigures(scope, 60),
        deps.certs.expiringFigures(scope, 90),
        deps.keyFigures.keyTallyFigures(db, scope),
        deps.keyFigures.rotationFigures(db, scope, iso(0), iso(ROTATION_DUE_DAYS * DAY_MS)),
        countFailedLogins(db, scope, iso(-DAY_MS)),
        deps.nodes.list(),
      ]);
      const quantum = deps.quantum.status();
      return {
        version: PRODUCT_VERSION,
        node: deps.nodeName,
        database: deps.engine,
        started_at: deps.startedAt.toISOString(),
        uptime_seconds: Math.max(0, Math.floor((clock().getTime() - deps.startedAt.getTime()) / 1000)),
        domain: actor.domainName,
        users,
        domains,
        audit_records: audit,
        active_sessions: sessions,
        certificates: {
          valid: certificates.valid,
          expiring: certificates.expiring,
          expiring_60: certs60.expiring,
          expiring_90: certs90.expiring,
        },
        keys: { ...keyBreakdown(tally), rotation },
        failed_logins_24h: failedLogins,
        // Clients (transparent encryption, KADP, RDM) are not built yet.
        clients: { healthy: 0, warning: 0, error: 0, revoked: 0 },
        quantum: { status: quantum.status, node: quantum.node },
        nodes,
        // The licence is the installation's: shown in system scope only (its key count is global).
        license: actor.systemScope ? await deps.license.summary() : null,
        last_backup: await lastBackup(scope),
        // The root of trust is the installation's: system scope only.
        hsm: actor.systemScope ? await hsmFigure() : null,
        recent: recent.map((r) => ({
          id: r.id,
          at: r.at,
          username: r.username,
          domain: r.domain_name,
          action: r.action,
          target: r.target,
          result: r.result,
          source_ip: r.source_ip,
        })),
      };
    },

    /**
     * Operations per class over the range, in points of `OP_BUCKET_SECONDS[range]` ending with
     * the current one; of the caller's domain, or of all with system scope.
     */
    async operations(actor: Actor, range: OpRange) {
      const scope = actor.systemScope ? null : actor.domainId;
      const bucket = OP_BUCKET_SECONDS[range] / 60;
      const nowMinute = Math.floor(clock().getTime() / 60_000);
      const last = Math.floor(nowMinute / bucket) * bucket;
      const first = last - RANGE_MINUTES[range] + bucket;
      const counts = await deps.opCounter.read(scope, first, bucket);
      const zero = () => Object.fromEntries(opClasses.map((c) => [c, 0])) as Record<OpClass, number>;
      const totals = zero();
      const points = [];
      for (let minute = first; minute <= last; minute += bucket) {
        const c = counts.get(minute) ?? zero();
        let total = 0;
        for (const k of opClasses) {
          total += c[k];
          totals[k] += c[k];
        }
        points.push({ at: new Date(minute * 60_000).toISOString(), total, counts: c });
      }
      return {
        range,
        bucket_seconds: bucket * 60,
        from: new Date(first * 60_000).toISOString(),
        to: new Date((last + bucket) * 60_000).toISOString(),
        points,
        totals,
        total: opClasses.reduce((sum, k) => sum + totals[k], 0),
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
