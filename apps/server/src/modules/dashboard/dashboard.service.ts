import { PRODUCT_VERSION } from '@ksp/contracts';
import type { Clock, SessionService } from '../../platform/auth/session.service.js';
import type { Db, Engine } from '../../platform/db/database.js';
import type { Actor } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';

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
}) {
  const { db, clock } = deps;
  const { countAudit, recentAudit } = deps.auditLog;
  const { countDomains, countMembers } = deps.domains;
  const { countUsers } = deps.userRecords;
  return {
    async summary(actor: Actor) {
      // Outside system scope every figure is the current domain's: other domains are not counted.
      const scope = actor.systemScope ? null : actor.domainId;
      const [users, domains, audit, recent, sessions, certificates] = await Promise.all([
        scope ? countMembers(db, scope) : countUsers(db),
        scope ? 1 : countDomains(db),
        countAudit(db, scope),
        recentAudit(db, scope, 10),
        deps.sessions.countActive(scope),
        deps.certs.expiringFigures(scope),
      ]);
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
        certificates,
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
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
