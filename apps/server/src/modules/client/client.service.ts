import { randomUUID } from 'node:crypto';
import {
  CLIENT_ERROR_SECONDS,
  CLIENT_HEARTBEAT_SECONDS,
  CLIENT_WARNING_SECONDS,
  Code,
  ConfigPayload,
  HeartbeatPayload,
  type AgentConfig,
  type api,
  type ClientRow,
  type ClientStatus,
  type ClientType,
  type Input,
  type QueryInput,
} from '@ksp/contracts';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { clientConfigEpoch, type AgentConfigSource } from '../../platform/agent-config.js';
import { subjectOf, writeAudit, type AuditEntry } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, type Db, type Executor } from '../../platform/db/database.js';
import type { Journal } from '../../platform/db/journal.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  AGENT_ROW_SQL,
  agentRead,
  CheckedCertificates,
  HEARTBEAT_REFUSALS_PER_MINUTE,
  judgeAgentCall,
  type AgentRowResult,
  type RefusalReason,
  type SignedCall,
} from './agent-auth.js';
import { RefusalCounter } from '../../platform/http/refusal-counter.js';
import type { ConfigWaiters } from './client.config.js';

export { HEARTBEAT_REFUSALS_PER_MINUTE };

/** The registration token usage each client type enrols with (a TDE agent is a "cte" token). */
const usageOf: Record<ClientType, 'cte' | 'rdm' | 'kadp'> = { tde: 'cte', rdm: 'rdm', kadp: 'kadp' };

/** Stored states: `deleting` = deleted by an operator, the agent has not acknowledged yet. */
type State = 'active' | 'revoked' | 'deleting' | 'deleted';

const iso = (ms: number) => new Date(ms).toISOString();

/** The heartbeat thresholds as times: a last heartbeat before `warn` is a warning, before `error` an error. */
function cuts(now: number) {
  return { warn: iso(now - CLIENT_WARNING_SECONDS * 1000), error: iso(now - CLIENT_ERROR_SECONDS * 1000) };
}

export function statusOf(row: Pick<ClientTable, 'state' | 'last_seen_at'>, now: number): ClientStatus {
  const state = row.state as State;
  if (state === 'revoked') return 'revoked';
  if (state === 'deleting' || state === 'deleted') return 'deleted';
  const { warn, error } = cuts(now);
  if (row.last_seen_at >= warn) return 'healthy';
  if (row.last_seen_at >= error) return 'warning';
  return 'error';
}

/**
 * The shortest time (ms) between two transactions recording accepted agent calls (`touch`): at
 * a thousand agents a node writes ten batches a second instead of one per call, and a call
 * waits at most this long for its batch.
 */
export const TOUCH_BATCH_MS = 100;
class AgentRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly row?: ClientTable,
  ) {
    super(reason);
  }
  /** Already counted toward the address's refusals of the minute (when it was decided). */
  counted = false;
}

const isRateLimited = (err: unknown) => (err as { statusCode?: number } | null)?.statusCode === 429;

/**
 * Clients (README.md): enrolment with a registration token and a CSR, the agent's signed
 * heartbeats, status from heartbeat age, and the console's list/detail/revoke/delete/renew.
 */
export function createClientService(deps: {
  db: Db;
  /** For the group commit of accepted agent calls (`touch`). */
  journal: Pick<Journal, 'commitThenFlush'>;
  clock: Clock;
  certs: () => ModuleServices['certs'];
  tokens: () => ModuleServices['registrationTokens'];
  license: () => ModuleServices['license'];
  /** The TDE client module's documents, when it is installed. */
  agentConfig?: () => AgentConfigSource | undefined;
  /** Agents waiting on this node (none: config calls answer at once). */
  waiters?: ConfigWaiters;
}) {
  const { db, clock } = deps;
  const now = () => clock().getTime();

  function view(row: ClientTable, at = now()): ClientRow {
    const state = row.state as State;
    return {
      id: row.id,
      name: row.name,
      type: row.type as ClientType,
      os: row.os,
      agent_version: row.agent_version,
      mac: row.mac,
      host: row.host,
      status: statusOf(row, at),
      delete_acknowledged: state === 'deleted',
      profile: row.profile,
      groups: JSON.parse(row.groups) as string[],
      token_name: row.token_name,
      last_seen_at: row.last_seen_at,
      registered_at: row.registered_at,
      certificate: {
        id: row.cert_id,
        serial: row.cert_serial,
        not_before: row.cert_not_before,
        not_after: row.cert_not_after,
        ca_name: row.cert_ca_name,
        revoked: state === 'revoked' || state === 'deleted',
      },
    };
  }

  /** A client of the type in the actor's domain; another domain's (or type's) is "not found". */
  async function find(actor: Actor, id: string, type: ClientType = 'kadp', trx: Executor = db) {
    const row = await trx
      .selectFrom('client')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .where('type', '=', type)
      .executeTakeFirst();
    if (!row) throw notFound('client.notFound', { id });
    return row;
  }

  async function audit(entry: AuditEntry, trx: Executor = db) {
    await writeAudit(trx, entry, clock());
  }

  /** An agent in the log: an API caller (source `api`), named `client:<name>`, or `-` when unknown. */
  const agentSubject = (row?: Pick<ClientTable, 'name' | 'domain_id'>) => ({
    userId: null,
    username: row ? `client:${row.name}` : '-',
    domainId: row?.domain_id ?? null,
    domainName: '',
    source: 'api' as const,
  });

  async function setState(actor: Actor, meta: RequestMeta, row: ClientTable, state: State, action: string) {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('client')
        .set({ state, updated_at: clock().toISOString() })
        .where('id', '=', row.id)
        .execute();
      await audit(
        {
          who: subjectOf(actor),
          action,
          target: row.name,
          result: 'success',
          ip: meta.ip,
          objectId: row.id,
          details: { serial: row.cert_serial },
        },
        trx,
      );
    });
  }

  /** Refused agent calls per address in the current minute. */
  const refusals = new RefusalCounter(HEARTBEAT_REFUSALS_PER_MINUTE, now);
  /** Told of every refusal counted here (the agent listener's thread counts them too). */
  let onCounted: ((ip: string) => void) | null = null;
  function countRefusal(ip: string) {
    refusals.count(ip);
    onCounted?.(ip);
  }
  /** A refusal, counted at once (synchronously): parallel forged calls cannot all pass the limit. */
  function refusal(ip: string, reason: AgentRefusal['reason'], row?: ClientTable) {
    countRefusal(ip);
    const err = new AgentRefusal(reason, row);
    err.counted = true;
    return err;
  }
  const overLimit = (ip: string) => refusals.overLimit(ip);
  /** The audit record of the first call of the minute an address's refusals stopped (HTTP 429). */
  async function auditRateLimit(meta: RequestMeta, action: string) {
    await audit({
      who: agentSubject(),
      action,
      target: 'agent',
      result: 'failure',
      ip: meta.ip,
      details: { reason: 'rateLimited', limit: HEARTBEAT_REFUSALS_PER_MINUTE },
    });
  }
  /** Answers HTTP 429 for a call `overLimit` refused, auditing the first of the minute. */
  async function rateLimited(meta: RequestMeta, action: string, over: 'first' | 'again'): Promise<never> {
    if (over === 'first') await auditRateLimit(meta, action);
    throw Object.assign(new Error('client.rateLimited'), { statusCode: 429 });
  }
  /** The agent listener's port while it listens (heartbeat answers name it); null: none. */
  let heartbeatPort: number | null = null;

  type Facts = Partial<Pick<ClientTable, 'os' | 'agent_version' | 'mac' | 'host'>>;
  interface Touch {
    id: string;
    timestamp: number;
    at: number;
    facts: Facts;
    resolve(accepted: boolean): void;
    reject(err: unknown): void;
  }
  let touches: Touch[] = [];
  /** Rows of one update statement (7 parameters each: far below either engine's limit). */
  const TOUCH_STATEMENT_ROWS = 500;
  let lastBatchAt = -Infinity;
  let touching: Promise<void> | null = null;

  /**
   * Records an accepted agent call (last request, last seen, facts) when its timestamp is still
   * newer than the client's last: false when a concurrent call with the same or a newer one won
   * (a replay). Calls arriving while a batch commits share the next transaction (group commit):
   * on SQLite every write transaction waits for its disk flush, and a thousand agents
   * heartbeating must not wait for a thousand flushes.
   */
  function touch(id: string, timestamp: number, at: number, facts: Facts): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      touches.push({ id, timestamp, at, facts, resolve, reject });
      touching ??= (async () => {
        try {
          while (touches.length) {
            // At most one batch every TOUCH_BATCH_MS: under load the calls of that time share
            // one transaction and one flush; a lone call (the last batch long ago) goes at once.
            // (Real time, not the service's clock: tests move that one.)
            const since = performance.now() - lastBatchAt;
            if (since < TOUCH_BATCH_MS) await new Promise((r) => setTimeout(r, TOUCH_BATCH_MS - since));
            lastBatchAt = performance.now();
            // One call per client in a batch: its update is one row of one statement, and a
            // second call of the same client (a replay, or a heartbeat beside a config call)
            // is judged against the first in the next batch.
            const batch: Touch[] = [];
            const later: Touch[] = [];
            const ids = new Set<string>();
            for (const t of touches) {
              if (ids.has(t.id)) later.push(t);
              else {
                ids.add(t.id);
                batch.push(t);
              }
            }
            touches = later;
            const accepted = new Set<string>();
            try {
              await deps.journal.commitThenFlush(async (trx) => {
                for (let i = 0; i < batch.length; i += TOUCH_STATEMENT_ROWS) {
                  const rows = batch
                    .slice(i, i + TOUCH_STATEMENT_ROWS)
                    .map(
                      (t) =>
                        sql`(cast(${t.id} as text), cast(${t.timestamp} as bigint), cast(${iso(t.at)} as text), cast(${t.facts.os ?? null} as text), cast(${t.facts.agent_version ?? null} as text), cast(${t.facts.mac ?? null} as text), cast(${t.facts.host ?? null} as text))`,
                    );
                  // Written out rather than built: every accepted agent call passes here. A
                  // row is updated only when its timestamp is newer than the stored one.
                  const { rows: updated } = await sql<{ id: string }>`
                    update client set
                      last_request_ms = v.column2,
                      last_seen_at = v.column3,
                      updated_at = v.column3,
                      os = coalesce(v.column4, client.os),
                      agent_version = coalesce(v.column5, client.agent_version),
                      mac = coalesce(v.column6, client.mac),
                      host = coalesce(v.column7, client.host)
                    from (values ${sql.join(rows)}) as v
                    where client.id = v.column1 and client.last_request_ms < v.column2
                    returning client.id`.execute(trx);
                  for (const u of updated) accepted.add(u.id);
                }
              });
              for (const t of batch) t.resolve(accepted.has(t.id));
            } catch (err) {
              for (const t of batch) t.reject(err);
            }
          }
        } finally {
          touching = null;
        }
      })();
    });
  }

  /** Client certificates this node checked in full (agent-auth.ts). */
  const checkedCerts = new CheckedCertificates();

  async function agentRow(id: string) {
    const { rows } = await sql<AgentRowResult>`${sql.raw(AGENT_ROW_SQL)}${id}`.execute(db);
    return agentRead(rows[0]);
  }

  /**
   * The full check of a client's certificate (issuing CA of the client's domain, its
   * signature, usage, not revoked): false refuses the call. A certificate revoked on the
   * certificates page revokes its client with it.
   */
  async function checkCertificateInFull(row: ClientTable, der: Buffer, at: number): Promise<boolean> {
    const checked = await deps.certs().checkClientCertificate(der);
    if (checked.ok && checked.ca.domainId === row.domain_id && checked.serial === row.cert_serial)
      return true;
    if (!checked.ok && checked.reason === 'revoked' && row.state === 'active')
      await db
        .updateTable('client')
        .set({ state: 'revoked', updated_at: iso(at) })
        .where('id', '=', row.id)
        .where('state', '=', 'active')
        .execute();
    return false;
  }

  /** The signature, the timestamp's skew and order, and the certificate of a signed agent call. */
  async function verifyAgent(
    body: SignedCall,
    meta: RequestMeta,
    action: string,
  ): Promise<{ row: ClientTable; at: number }> {
    // Past the address's refusals of the minute: 429 before any check. Checked again once the
    // read is done, in the same turn as the signature check, whose refusal is counted in that
    // turn too: of many forged calls sent at once, no more than the limit are verified.
    let over = overLimit(meta.ip);
    if (over !== 'no') await rateLimited(meta, action, over);
    const read = await agentRow(body.client_id);
    over = overLimit(meta.ip);
    if (over !== 'no') await rateLimited(meta, action, over);
    const at = now();
    const judged = judgeAgentCall(read, body, at, checkedCerts);
    if ('refused' in judged) throw refusal(meta.ip, judged.refused, judged.row);
    const { row, fullCheck } = judged;
    if (fullCheck) {
      if (!(await checkCertificateInFull(row, fullCheck.der, at))) throw refusal(meta.ip, 'certificate', row);
      checkedCerts.remember(row, fullCheck.publicKey);
    }
    return { row, at };
  }

  const badPayload = (err: unknown) =>
    invalid('client.auth.payload', {
      reason:
        err instanceof SyntaxError ? 'JSON' : err instanceof Error ? err.message.slice(0, 200) : 'error',
    });

  /** Audits a refused agent call and gives the error to answer (4001 for an authentication refusal). */
  async function refused(meta: RequestMeta, body: SignedCall, action: string, err: unknown) {
    if (isRateLimited(err)) return err;
    const refusal = err instanceof AgentRefusal ? err : undefined;
    await audit({
      who: agentSubject(refusal?.row),
      action,
      target: refusal?.row?.name ?? body.client_id,
      result: 'failure',
      ip: meta.ip,
      objectId: refusal?.row?.id ?? null,
      details: { reason: refusal ? refusal.reason : err instanceof KspError ? err.messageKey : 'error' },
    });
    if (!refusal?.counted) countRefusal(meta.ip);
    if (refusal) return new KspError(Code.BAD_CREDENTIALS, `client.auth.${refusal.reason}`);
    return err;
  }

  const emptyConfig = (clientId: string, version: number): AgentConfig => ({
    client_id: clientId,
    version,
    profile: null,
    guard_points: [],
    keys: [],
  });

  /** The client's document from the TDE client module's `agentConfig`, or an empty one without it. */
  async function composeConfig(row: ClientTable): Promise<AgentConfig> {
    const source = deps.agentConfig?.();
    if (!source) return emptyConfig(row.id, await clientConfigEpoch(db, row.domain_id));
    return source.configFor(db, {
      id: row.id,
      domain_id: row.domain_id,
      type: row.type,
      profile: row.profile,
      groups: JSON.parse(row.groups) as string[],
      cert_pem: row.cert_pem,
    });
  }

  return {
    /**
     * The clients of a type (KADP by default; the TDE and RDM pages pass theirs, with the OS and
     * group filters they add) and the status bar's counts, which ignore the filters.
     */
    async list(
      actor: Actor,
      query: QueryInput<typeof api.client.list> & { os?: string | undefined; group?: string | undefined },
      type: ClientType = 'kadp',
    ) {
      const at = now();
      const { warn, error } = cuts(at);
      const base = db.selectFrom('client').where('domain_id', '=', actor.domainId).where('type', '=', type);
      const counted = await base
        .select((eb) => [
          eb.fn.countAll<string | number>().as('total'),
          eb.fn
            .sum<string | number | null>(
              eb
                .case()
                .when(eb.and([eb('state', '=', 'active'), eb('last_seen_at', '<', error)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('errors'),
          eb.fn
            .sum<string | number | null>(
              eb
                .case()
                .when(
                  eb.and([
                    eb('state', '=', 'active'),
                    eb('last_seen_at', '<', warn),
                    eb('last_seen_at', '>=', error),
                  ]),
                )
                .then(1)
                .else(0)
                .end(),
            )
            .as('warnings'),
          eb.fn
            .sum<string | number | null>(
              eb
                .case()
                .when(eb.and([eb('state', '=', 'active'), eb('last_seen_at', '>=', warn)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('healthy'),
        ])
        .executeTakeFirst();
      let q = base;
      if (query.name) {
        const like = `%${escapeLike(query.name)}%`;
        q = q.where((eb) => eb.or([eb('name', 'like', like), eb('host', 'like', like)]));
      }
      if (query.os) {
        const os = `%${escapeLike(query.os.toLowerCase())}%`;
        q = q.where((eb) => eb(eb.fn<string>('lower', ['os']), 'like', os));
      }
      // `groups` is the JSON list of group ids: an id is a quoted string in it.
      if (query.group) q = q.where('groups', 'like', `%${escapeLike(JSON.stringify(query.group))}%`);
      switch (query.status) {
        case 'healthy':
          q = q.where('state', '=', 'active').where('last_seen_at', '>=', warn);
          break;
        case 'warning':
          q = q
            .where('state', '=', 'active')
            .where('last_seen_at', '<', warn)
            .where('last_seen_at', '>=', error);
          break;
        case 'error':
          q = q.where('state', '=', 'active').where('last_seen_at', '<', error);
          break;
        case 'revoked':
          q = q.where('state', '=', 'revoked');
          break;
        case 'deleted':
          q = q.where('state', 'in', ['deleting', 'deleted']);
          break;
        default:
          break;
      }
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await q
        .selectAll()
        .orderBy('registered_at', 'desc')
        .orderBy('id')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return {
        data: rows.map((r) => view(r, at)),
        total: Number(total?.n ?? 0),
        counts: {
          total: Number(counted?.total ?? 0),
          errors: Number(counted?.errors ?? 0),
          warnings: Number(counted?.warnings ?? 0),
          healthy: Number(counted?.healthy ?? 0),
        },
      };
    },

    async detail(actor: Actor, id: string, type: ClientType = 'kadp') {
      return view(await find(actor, id, type));
    },

    async revoke(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      if (row.state === 'revoked') throw stateForbids('client.revoked', { name: row.name });
      if (row.state !== 'active') throw stateForbids('client.deleted', { name: row.name });
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'cessationOfOperation');
      await setState(actor, meta, row, 'revoked', 'client.revoke');
      return view(await find(actor, id, type));
    },

    async remove(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      if (row.state === 'deleting' || row.state === 'deleted')
        throw stateForbids('client.deleted', { name: row.name });
      // A revoked agent cannot authenticate to acknowledge: its deletion is final at once.
      await setState(actor, meta, row, row.state === 'revoked' ? 'deleted' : 'deleting', 'client.delete');
      return view(await find(actor, id, type));
    },

    async forceRemove(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'cessationOfOperation');
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('client').where('id', '=', row.id).execute();
        await audit(
          {
            who: subjectOf(actor),
            action: 'client.force-delete',
            target: row.name,
            result: 'success',
            ip: meta.ip,
            objectId: row.id,
            details: { serial: row.cert_serial },
          },
          trx,
        );
      });
      return { deleted: 1 };
    },

    async renew(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      if (row.state === 'revoked') throw stateForbids('client.revoked', { name: row.name });
      if (row.state !== 'active') throw stateForbids('client.deleted', { name: row.name });
      const issued = await deps
        .certs()
        .prepareClientCertificate(row.domain_id, { renew: row.cert_id }, row.cert_validity_days);
      await db.transaction().execute(async (trx) => {
        await issued.store(trx);
        await trx
          .updateTable('client')
          .set({
            cert_id: issued.id,
            cert_serial: issued.serial,
            cert_pem: issued.certificatePem,
            cert_not_before: issued.notBefore,
            cert_not_after: issued.notAfter,
            cert_ca_name: issued.ca.name,
            updated_at: clock().toISOString(),
          })
          .where('id', '=', row.id)
          .execute();
        await audit(
          {
            who: subjectOf(actor),
            action: 'client.renew',
            target: row.name,
            result: 'success',
            ip: meta.ip,
            objectId: row.id,
            details: { serial: issued.serial, previous: row.cert_serial },
          },
          trx,
        );
      });
      // The old certificate is superseded: the client answers only with the new one from now on.
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'superseded');
      return view(await find(actor, id, type));
    },

    /** Agent enrolment (public): token, quota, CSR; every refusal audited, never the secret. */
    async enrol(meta: RequestMeta, body: Input<typeof api.client.enrol>) {
      try {
        const token = await deps.tokens().lookup(body.token);
        await deps.license().checkQuota(`${body.type}_clients`, 1);
        const issued = await deps
          .certs()
          .prepareClientCertificate(
            token.domainId,
            { csr: body.csr, ip: meta.ip, action: 'client.enrol' },
            token.certValidityDays,
          );
        const at = clock();
        const row: ClientTable = {
          id: randomUUID(),
          domain_id: token.domainId,
          name: body.name,
          type: body.type,
          os: body.os,
          agent_version: body.agent_version,
          mac: body.mac,
          host: body.host,
          state: 'active',
          profile: null,
          groups: '[]',
          token_id: token.tokenId,
          token_name: token.name,
          cert_validity_days: token.certValidityDays,
          cert_id: issued.id,
          cert_serial: issued.serial,
          cert_pem: issued.certificatePem,
          cert_not_before: issued.notBefore,
          cert_not_after: issued.notAfter,
          cert_ca_name: issued.ca.name,
          last_request_ms: 0,
          communication_enabled: 1,
          client_locked: 0,
          last_seen_at: at.toISOString(),
          registered_at: at.toISOString(),
          updated_at: at.toISOString(),
        };
        await db.transaction().execute(async (trx) => {
          // The exact quota check first (its lock orders concurrent enrolments on every node).
          await deps.license().claimOne(trx, `${body.type}_clients`, 1);
          // The use is spent, the certificate and the client kept together: a token exhausted
          // meanwhile leaves nothing behind. A token of another usage is "unknown" here.
          const spent = await deps.tokens().redeem(trx, body.token, usageOf[body.type]);
          await issued.store(trx);
          await trx.insertInto('client').values(row).execute();
          await audit(
            {
              who: {
                userId: null,
                username: `token:${spent.name}`,
                domainId: spent.domainId,
                domainName: '',
              },
              action: 'client.enrol',
              target: row.name,
              result: 'success',
              ip: meta.ip,
              objectId: row.id,
              details: { token: spent.name, type: row.type, serial: issued.serial, ca: issued.ca.name },
            },
            trx,
          );
        });
        return {
          client_id: row.id,
          certificate_pem: issued.certificatePem,
          chain_pem: issued.chainPem,
          serial: issued.serial,
          not_after: issued.notAfter,
          heartbeat_seconds: CLIENT_HEARTBEAT_SECONDS,
          heartbeat_port: heartbeatPort,
        };
      } catch (err) {
        await audit({
          who: agentSubject(),
          action: 'client.enrol',
          target: body.name,
          result: 'failure',
          ip: meta.ip,
          details: { type: body.type, reason: err instanceof KspError ? err.messageKey : 'error' },
        });
        throw err;
      }
    },

    /**
     * What the agent listener's thread (agent-listener.ts) asks of this node: it judges a
     * heartbeat with the same code (agent-auth.ts) and leaves writes and other modules here.
     */
    listener: {
      /** Records an accepted heartbeat in the group commit; false: a replay lost the race. */
      touch: (id: string, timestamp: number, at: number, facts: Facts) => touch(id, timestamp, at, facts),
      fullCheck: (row: ClientTable, der: Buffer) => checkCertificateInFull(row, der, now()),
      /** Audits a refusal the listener decided (and counted); counted here too, for the API port. */
      async refused(
        meta: RequestMeta,
        clientId: string,
        row: Pick<ClientTable, 'id' | 'name' | 'domain_id'> | undefined,
        reason: string,
      ) {
        refusals.count(meta.ip);
        await audit({
          who: agentSubject(row),
          action: 'client.heartbeat',
          target: row?.name ?? clientId,
          result: 'failure',
          ip: meta.ip,
          objectId: row?.id ?? null,
          details: { reason },
        });
      },
      rateLimited: (meta: RequestMeta) => auditRateLimit(meta, 'client.heartbeat'),
      /** Calls `tell` for each refusal counted on this thread; returns the way to stop. */
      onRefusalCounted(tell: (ip: string) => void) {
        onCounted = tell;
        return () => {
          if (onCounted === tell) onCounted = null;
        };
      },
      setPort(port: number | null) {
        heartbeatPort = port;
      },
    },

    /**
     * The certificates page revoked a client's certificate (or lifted its hold): the client is
     * revoked (or active again) in the same transaction. Only an active client is revoked, and
     * only a revoked one whose certificate this still is comes back.
     */
    async certificateChanged(trx: Executor, certId: string, revoked: boolean, at: string) {
      await trx
        .updateTable('client')
        .set({ state: revoked ? 'revoked' : 'active', updated_at: at })
        .where('cert_id', '=', certId)
        .where('state', '=', revoked ? 'active' : 'revoked')
        .execute();
    },

    /**
     * A signed call of another module's agent-facing API (the KADP crypto API): the same checks
     * as a heartbeat (signature, skew, order, certificate, communication), refused with 4001 and
     * audited under `action`, counted toward the address's refusal limit (HTTP 429 past it,
     * before any check), `accept` refusing clients the call is not for. The timestamp is used
     * at once, in its own statement: these calls are not batched like heartbeats.
     */
    async authenticateCall(
      meta: RequestMeta,
      body: SignedCall,
      action: string,
      accept: (row: ClientTable) => boolean,
    ): Promise<ClientTable> {
      try {
        const { row, at } = await verifyAgent(body, meta, action);
        if (!accept(row)) throw new AgentRefusal('unknown', row);
        // One use per timestamp: a concurrent call with the same or a newer one won.
        const updated = await db
          .updateTable('client')
          .set({ last_request_ms: body.timestamp, last_seen_at: iso(at) })
          .where('id', '=', row.id)
          .where('last_request_ms', '<', body.timestamp)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw new AgentRefusal('stale', row);
        return row;
      } catch (err) {
        throw await refused(meta, body, action, err);
      }
    },

    /**
     * An agent's signed heartbeat (public): the signature by the stored certificate's key, the
     * certificate still valid and unrevoked and the client's own, a timestamp newer than the last
     * and within the skew. Refusals answer 4001 and are audited.
     */
    async heartbeat(meta: RequestMeta, body: Input<typeof api.client.heartbeat>) {
      try {
        const { row, at } = await verifyAgent(body, meta, 'client.heartbeat');
        let payload: HeartbeatPayload;
        try {
          payload = HeartbeatPayload.parse(JSON.parse(body.payload));
        } catch (err) {
          throw badPayload(err);
        }
        const acknowledged = row.state === 'deleting' && payload.acknowledge_delete === true;
        const facts = {
          ...(payload.os !== undefined ? { os: payload.os } : {}),
          ...(payload.agent_version !== undefined ? { agent_version: payload.agent_version } : {}),
          ...(payload.mac !== undefined ? { mac: payload.mac } : {}),
          ...(payload.host !== undefined ? { host: payload.host } : {}),
        };
        const result = acknowledged
          ? await db.transaction().execute(async (trx) => {
              const updated = await trx
                .updateTable('client')
                .set({
                  ...facts,
                  state: 'deleted',
                  last_request_ms: body.timestamp,
                  last_seen_at: iso(at),
                  updated_at: iso(at),
                })
                .where('id', '=', row.id)
                .where('last_request_ms', '<', body.timestamp)
                .executeTakeFirst();
              // A concurrent call with the same or a newer timestamp won: this one is a replay.
              if (Number(updated.numUpdatedRows) === 0) throw new AgentRefusal('stale', row);
              await audit(
                {
                  who: agentSubject(row),
                  action: 'client.delete-ack',
                  target: row.name,
                  result: 'success',
                  ip: meta.ip,
                  objectId: row.id,
                },
                trx,
              );
              return 'deleted' as const;
            })
          : await (async () => {
              if (!(await touch(row.id, body.timestamp, at, facts))) throw new AgentRefusal('stale', row);
              return row.state === 'active' ? ('enrolled' as const) : ('deleted' as const);
            })();
        if (acknowledged)
          await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'cessationOfOperation');
        return {
          state: result,
          heartbeat_seconds: CLIENT_HEARTBEAT_SECONDS,
          certificate_pem: row.cert_pem,
          serial: row.cert_serial,
          not_after: row.cert_not_after,
          heartbeat_port: heartbeatPort,
        };
      } catch (err) {
        throw await refused(meta, body, 'client.heartbeat', err);
      }
    },

    /**
     * The config channel (README.md "Config push"): authenticated like the heartbeat; answers
     * the client's document at once when the domain's epoch is above `since_version`, else
     * holds the call until the epoch changes, `wait_s` passes, or the agent goes away.
     */
    async config(meta: RequestMeta, body: Input<typeof api.client.config>, request?: FastifyRequest) {
      let row: ClientTable;
      let payload: ReturnType<typeof ConfigPayload.parse>;
      try {
        const verified = await verifyAgent(body, meta, 'client.config');
        row = verified.row;
        try {
          payload = ConfigPayload.parse(JSON.parse(body.payload));
        } catch (err) {
          throw badPayload(err);
        }
        if (!(await touch(row.id, body.timestamp, verified.at, {}))) throw new AgentRefusal('stale', row);
      } catch (err) {
        throw await refused(meta, body, 'client.config', err);
      }
      if (row.state !== 'active')
        return { state: 'deleted' as const, changed: false, config: emptyConfig(row.id, 0) };
      const epoch = await clientConfigEpoch(db, row.domain_id);
      if (epoch <= payload.since_version && payload.wait_s > 0 && deps.waiters) {
        const waiting = deps.waiters.wait(
          row.id,
          row.domain_id,
          payload.since_version,
          payload.wait_s * 1000,
        );
        // The agent gone (connection closed): its wait ends with it.
        const socket = request?.raw.socket;
        const gone = () => waiting.end();
        socket?.once('close', gone);
        try {
          await waiting.done;
        } finally {
          socket?.off('close', gone);
        }
        // The row read before the wait is stale when the wait ended for a change to this client
        // (its profile, groups, certificate or state): the answer is composed from the row now.
        const now = await db.selectFrom('client').selectAll().where('id', '=', row.id).executeTakeFirst();
        if (!now || now.state !== 'active')
          return { state: 'deleted' as const, changed: false, config: emptyConfig(row.id, 0) };
        row = now;
      }
      const config = await composeConfig(row);
      return { state: 'enrolled' as const, changed: config.version > payload.since_version, config };
    },

    /** How many agents hold a config call open on this node (diagnostics, tests). */
    waitingConfigCalls(): number {
      return deps.waiters?.size ?? 0;
    },
  };
}

export type ClientService = ReturnType<typeof createClientService>;
