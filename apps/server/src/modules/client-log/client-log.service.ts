import { v7 as uuidv7 } from 'uuid';
import {
  LOG_EXPORT_MAX,
  type ClientLogEffect,
  type ClientLogLevel,
  type ClientLogRecord,
  type Input,
  type QueryInput,
  type api,
} from '@ksp/contracts';
import type { AuditSubject, AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { nonceBytes } from '../../platform/crypto/random.js';
import { RefusalCounter } from '../../platform/http/refusal-counter.js';
import { exportDetails, exportFile } from '../../platform/csv.js';
import type { CopyOut, Db, Engine } from '../../platform/db/database.js';
import type { ClientLogTable } from '../../platform/db/schema.js';
import { notFound, UnauthorizedError } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { logPage } from '../../platform/log-pages.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  AgentAuthError,
  checkClaims,
  checkSignature,
  parseAgentToken,
  type AgentAuthFailure,
} from './client-log.auth.js';
import * as store from './client-log.store.js';

/** What alarms count (the `clientLogs` service's `count`). */
export interface ClientLogCountFilter {
  /** null: every domain. */
  domainId: string | null;
  /** Exactly, or a prefix ending with ".". */
  action?: string;
  result?: ClientLogEffect;
  /** ISO time: records received at or after it. */
  since: string;
  /** Counting stops here. */
  limit: number;
}

/** The upload as it reached the server: the raw body bytes (hashed) and the parsed body. */
export interface Upload {
  authorization: string | undefined;
  rawBody: Buffer;
  body: Input<typeof api.clientLog.upload>;
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Stored by this module as JSON; anything else is shown as text.
  }
  return { text };
}

export const CLIENT_CSV_COLUMNS = [
  'received_at',
  'at',
  'level',
  'action',
  'effect',
  'client_name',
  'client_os',
  'ip',
  'os_user',
  'process',
  'resource',
  'guard_point',
  'policy',
  'client_cn',
  'client_id',
  'domain_name',
  'seq',
  'details',
  'id',
] as const satisfies readonly store.ClientViewMember[];

/**
 * Refused uploads one address may make in a minute (per node). Beyond, the address is answered
 * HTTP 429 before any check, and only the first such answer is audited: a flood of forged tokens
 * can neither keep the server verifying signatures nor fill the audit trail.
 */
export const UPLOAD_REFUSALS_PER_MINUTE = 30;

const visibleDomain = (actor: Actor) => (actor.systemScope ? null : actor.domainId);

type Filter = Omit<QueryInput<typeof api.clientLog.export>, 'format'>;
const filterOf = (actor: Actor, query: Filter): store.ClientLogFilter => ({
  domainId: visibleDomain(actor),
  from: query.from,
  to: query.to,
  level: query.level,
  effect: query.effect,
  action: query.action,
  client: query.client,
  os_user: query.os_user,
  ip: query.ip,
  q: query.q,
});

type CertService = ModuleServices['certs'];
/** The CA of an agent certificate and the certificate's identity (from the `certs` service). */
type ClientCertificateIdentity = Pick<
  Extract<Awaited<ReturnType<CertService['checkClientCertificate']>>, { ok: true }>,
  'ca' | 'serial' | 'cn'
>;

export function createClientLogService(deps: {
  db: Db;
  engine: Engine;
  /** PostgreSQL: exports are written by the database (COPY), not read row by row. */
  copyOut: CopyOut | null;
  clock: Clock;
  audit: AuditWriter;
  certs: () => CertService;
  domainNames: (ids: string[]) => Promise<Map<string, string>>;
}) {
  const { db, clock, audit } = deps;

  async function views(rows: store.ClientLogRow[]): Promise<ClientLogRecord[]> {
    const names = await deps.domainNames([...new Set(rows.map((r) => r.domain_id))]);
    return rows.map((row) => view(row, names));
  }

  function view(row: store.ClientLogRow, names: Map<string, string>): ClientLogRecord {
    return {
      id: row.id,
      seq: Number(row.seq),
      level: row.level as ClientLogLevel,
      at: row.agent_at,
      received_at: row.received_at,
      action: row.action,
      effect: row.effect as ClientLogEffect,
      policy: row.policy,
      guard_point: row.guard_point,
      os_user: row.os_user,
      process: row.process,
      resource: row.resource,
      client_id: row.client_id,
      client_cn: row.client_cn,
      client_name: row.client_name,
      client_os: row.client_os,
      ip: row.client_ip,
      domain_name: names.get(row.domain_id) ?? '',
      details: parseDetails(row.details),
    };
  }

  /** Who an agent is in the audit trail: its certificate's name, in its CA's domain. */
  async function agentSubject(identity: ClientCertificateIdentity | null): Promise<AuditSubject> {
    if (!identity)
      return { userId: null, username: 'agent', domainId: null, domainName: '', source: 'agent' };
    const names = await deps.domainNames([identity.ca.domainId]);
    return {
      userId: null,
      username: identity.cn.slice(0, 128),
      domainId: identity.ca.domainId,
      domainName: names.get(identity.ca.domainId) ?? '',
      source: 'agent',
    };
  }

  const refusals = new RefusalCounter(UPLOAD_REFUSALS_PER_MINUTE, () => clock().getTime());

  /** Past the limit: HTTP 429 at once; the first such answer of the minute is audited. */
  async function throttle(meta: RequestMeta): Promise<void> {
    const over = refusals.overLimit(meta.ip);
    if (over === 'no') return;
    if (over === 'first')
      await audit.write(db, {
        who: await agentSubject(null),
        action: 'log.client.upload',
        target: 'agent',
        result: 'failure',
        ip: meta.ip,
        details: { reason: 'rateLimited', limit: UPLOAD_REFUSALS_PER_MINUTE },
      });
    throw Object.assign(new Error('clientLog.rateLimited'), { statusCode: 429 });
  }

  /** Records a refused upload (never the token) and answers HTTP 401 with the reason. */
  async function refuse(
    reason: AgentAuthFailure,
    meta: RequestMeta,
    identity: ClientCertificateIdentity | null,
  ): Promise<never> {
    refusals.count(meta.ip);
    await audit.write(db, {
      who: await agentSubject(identity),
      action: 'log.client.upload',
      target: identity?.cn.slice(0, 128) ?? 'agent',
      result: 'failure',
      ip: meta.ip,
      details: {
        reason,
        ...(identity ? { ca: identity.ca.name, serial: identity.serial } : {}),
      },
    });
    throw new UnauthorizedError(`clientLog.auth.${reason}`);
  }

  return {
    /**
     * An agent's upload: the token's signature, the certificate (active local CA, valid, not
     * revoked, clientAuth), the claims and the body hash, then the token's id against the
     * replay store, all before a record is stored; then every record or none.
     */
    async upload(meta: RequestMeta, upload: Upload) {
      await throttle(meta);
      let identity: ClientCertificateIdentity | null = null;
      let jti: { jti: string; expiresAt: number };
      try {
        const token = parseAgentToken(upload.authorization);
        const checked = await deps.certs().checkClientCertificate(token.certificate);
        if (!checked.ok) {
          if ('ca' in checked) identity = checked;
          throw new AgentAuthError(checked.reason);
        }
        identity = checked;
        await checkSignature(token, checked.spki);
        jti = checkClaims(token.claims, upload.rawBody, clock().getTime());
      } catch (err) {
        if (err instanceof AgentAuthError) return refuse(err.reason, meta, identity);
        throw err;
      }
      const agent = identity;
      const receivedAt = clock().toISOString();
      const { body } = upload;
      const rows: Omit<ClientLogTable, 'seq'>[] = body.records.map((r) => ({
        id: uuidv7({ random: nonceBytes(16) }),
        domain_id: agent.ca.domainId,
        ca_id: agent.ca.id,
        client_id: agent.serial,
        client_cn: agent.cn.slice(0, 256),
        client_name: body.client_name || agent.cn.slice(0, 128),
        client_os: body.client_os ?? '',
        client_ip: meta.ip,
        level: r.level,
        agent_at: new Date(r.at).toISOString(),
        received_at: receivedAt,
        action: r.action,
        effect: r.effect,
        policy: r.policy,
        guard_point: r.guard_point,
        os_user: r.os_user,
        process: r.process,
        resource: r.resource,
        details: JSON.stringify(r.details),
      }));
      const who = await agentSubject(agent);
      const replayed = await db.transaction().execute(async (trx) => {
        const fresh = await store.rememberJti(
          trx,
          `${agent.ca.id}:${agent.serial}`,
          jti.jti,
          new Date(jti.expiresAt).toISOString(),
        );
        if (!fresh) return true;
        await store.insertRecords(trx, deps.engine, rows);
        await audit.write(trx, {
          who,
          action: 'log.client.upload',
          target: agent.cn.slice(0, 128),
          result: 'success',
          ip: meta.ip,
          details: { records: rows.length, client: rows[0]?.client_name ?? '', ca: agent.ca.name },
        });
        return false;
      });
      if (replayed) return refuse('replay', meta, agent);
      return { accepted: rows.length };
    },

    list(actor: Actor, query: QueryInput<typeof api.clientLog.list>) {
      return logPage(query, {
        keyOf: (text) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined),
        read: (offset, limit, from) => store.listRecords(db, filterOf(actor, query), offset, limit, from),
        positionOf: (row) => ({ at: row.received_at, key: row.seq }),
        views,
      });
    },

    async detail(actor: Actor, id: string) {
      const row = await store.findRecord(db, id, visibleDomain(actor));
      if (!row) throw notFound('clientLog.notFound', { id });
      return (await views([row]))[0]!;
    },

    /** The export as a stream; the export itself is audited first. */
    async export(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.clientLog.export>) {
      const { format, ...filters } = query;
      const filter = filterOf(actor, filters);
      await audit.byCaller(db, actor, meta, {
        action: 'log.client.export',
        target: format,
        details: exportDetails(format, filters),
      });
      // The same bytes either way; PostgreSQL writes them itself (see the server records' export).
      return exportFile({
        name: 'ksp-client-log',
        at: clock(),
        format,
        columns: CLIENT_CSV_COLUMNS,
        copyOut: deps.copyOut,
        select: () => store.exportSelect(db, filter, LOG_EXPORT_MAX, format, CLIENT_CSV_COLUMNS),
        read: async () => {
          const names = await deps.domainNames(await store.domainIds(db));
          return {
            chunks: store.streamRecords(db, filter, LOG_EXPORT_MAX),
            view: (row: store.ClientLogRow) => view(row, names),
          };
        },
      });
    },

    /** For alarms: records received since `since`, counted up to `limit`. */
    count(filter: ClientLogCountFilter): Promise<number> {
      return store.countRecords(
        db,
        {
          domainId: filter.domainId,
          from: filter.since,
          action: filter.action,
          effect: filter.result,
        },
        filter.limit,
      );
    },

    /** Retention (`KSP_LOG_RETENTION_DAYS`, the same as the server records): by time of receipt. */
    async retain(days: number) {
      if (days <= 0) return 0;
      return store.deleteBefore(db, new Date(clock().getTime() - days * 86_400_000).toISOString());
    },

    /** Forgets upload token ids whose tokens have expired (the replay store stays small). */
    sweepJtis() {
      return store.forgetExpiredJtis(db, clock().toISOString());
    },

    /** For the syslog forwarder: records after a sequence number, in order. */
    recordsAfter: (seq: number, limit: number) => store.recordsAfter(db, seq, limit),
    lastSeq: () => store.lastSeq(db),
  };
}

export type ClientLogService = ReturnType<typeof createClientLogService>;
