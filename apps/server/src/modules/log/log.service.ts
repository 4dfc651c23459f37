import {
  LOG_EXPORT_MAX,
  type LogRecord,
  type LogSeverity,
  type LogSource,
  type QueryInput,
  type api,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import { csvCell, exportDetails, exportFile } from '../../platform/csv.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { CopyOut, Db, Engine } from '../../platform/db/database.js';
import { notFound, stateForbids } from '../../platform/errors.js';
import * as chain from './log.chain.js';
import * as chainStore from './log.chain.store.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { logPage } from '../../platform/log-pages.js';
import * as store from './log.store.js';

function view(row: store.ExportedRecord): LogRecord {
  let details: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(row.details) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      details = parsed as Record<string, unknown>;
  } catch {
    details = { text: row.details };
  }
  return {
    id: row.id,
    at: row.at,
    severity: row.severity as LogSeverity,
    action: row.action,
    target: row.target,
    result: row.result,
    username: row.username,
    domain_name: row.domain_name,
    source: row.source as LogSource,
    ip: row.source_ip,
    count: row.count,
    object_id: row.object_id,
    details,
  };
}

/** What a session may see: its domain's records, or every record from the root domain. */
const visibleDomain = (actor: Actor) => (actor.systemScope ? null : actor.domainId);

type Filter = Omit<QueryInput<typeof api.log.export>, 'format'>;
const filterOf = (actor: Actor, query: Filter): store.LogFilter => ({
  domainId: visibleDomain(actor),
  from: query.from,
  to: query.to,
  severity: query.severity,
  action: query.action,
  result: query.result,
  username: query.username,
  ip: query.ip,
  source: query.source,
  q: query.q,
});

export const CSV_COLUMNS = [
  'at',
  'severity',
  'action',
  'target',
  'result',
  'username',
  'domain_name',
  'source',
  'ip',
  'count',
  'object_id',
  'details',
  'id',
] as const satisfies readonly store.ViewMember[];

export { csvCell };

export function createLogService(deps: {
  db: Db;
  engine: Engine;
  /** PostgreSQL: exports are written by the database (COPY), not read row by row. */
  copyOut: CopyOut | null;
  clock: Clock;
  audit: AuditWriter;
  /** The chain key (derived from the root key); null while the system is sealed. */
  chainKey: () => Buffer | null;
  domainNames: (ids: string[]) => Promise<Map<string, string>>;
}) {
  const { db, clock, audit } = deps;
  let sealing: Promise<number> = Promise.resolve(0);
  return {
    /** Seals what was written since the last run (the `log.seal` and `syslog.forward` jobs). */
    seal(): Promise<number> {
      const key = deps.chainKey();
      if (!key) return Promise.resolve(0);
      // One sealing at a time in this process; the next caller waits and then seals the rest.
      const run = sealing.then(() => chain.sealPending(db, key, clock, deps.engine));
      sealing = run.catch(() => 0);
      return run;
    },

    async verify(actor: Actor, meta: RequestMeta) {
      const key = deps.chainKey();
      if (!key) throw stateForbids('log.sealed');
      const names = actor.systemScope
        ? await chainStore.chains(db)
        : (await chainStore.chains(db)).filter((c) => c === actor.domainId);
      const reports = [];
      for (const name of names) reports.push(await chain.verifyChain(db, key, name));
      const domainNames = await deps.domainNames(reports.map((r) => r.chain).filter(Boolean));
      const ok = reports.every((r) => r.ok);
      await audit.byCaller(db, actor, meta, {
        action: 'log.verify',
        target: actor.systemScope ? 'all' : actor.domainName,
        result: ok ? 'success' : 'failure',
        ...(ok ? {} : { severity: 'CRITICAL' as const }),
        details: {
          chains: reports.length,
          broken: reports
            .filter((r) => !r.ok)
            .map((r) => `${r.chain || 'system'}@${r.broken?.seq}`)
            .join(' '),
        },
      });
      return {
        ok,
        chains: reports.map(({ chain: c, ...r }) => ({ domain: c ? (domainNames.get(c) ?? c) : '', ...r })),
        unsealed: await chainStore.unsealedCount(db, actor.systemScope ? undefined : actor.domainId),
      };
    },

    /** Retention: drops whole old prefixes of each chain, re-anchored (the `log.retention` job). */
    async retain(days: number) {
      if (days <= 0) return 0;
      return chain.dropBefore(db, new Date(clock().getTime() - days * 86_400_000).toISOString(), clock);
    },

    list(actor: Actor, query: QueryInput<typeof api.log.list>) {
      return logPage(query, {
        keyOf: (text) => (/^[\w-]{1,64}$/.test(text) ? text : undefined),
        read: (offset, limit, from) => store.listRecords(db, filterOf(actor, query), offset, limit, from),
        positionOf: (row) => ({ at: row.at, key: row.id }),
        views: (rows) => rows.map(view),
      });
    },

    async detail(actor: Actor, id: string) {
      const row = await store.findRecord(db, id, visibleDomain(actor));
      if (!row) throw notFound('log.notFound', { id });
      return view(row);
    },

    /** The export as a stream; the export itself is audited first (who took which records). */
    async export(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.log.export>) {
      const { format, ...filters } = query;
      const filter = filterOf(actor, filters);
      await audit.byCaller(db, actor, meta, {
        action: 'log.export',
        target: format,
        details: exportDetails(format, filters),
      });
      // The same bytes either way; PostgreSQL writes them itself, which keeps the server's
      // memory flat over a million records (docs/performance.md).
      return exportFile({
        name: 'ksp-log',
        at: clock(),
        format,
        columns: CSV_COLUMNS,
        copyOut: deps.copyOut,
        select: () => store.exportSelect(db, filter, LOG_EXPORT_MAX, format, CSV_COLUMNS),
        read: () => Promise.resolve({ chunks: store.streamRecords(db, filter, LOG_EXPORT_MAX), view }),
      });
    },
  };
}

export type LogService = ReturnType<typeof createLogService>;
