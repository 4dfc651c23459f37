import {
  CLIENT_HEARTBEAT_SECONDS,
  Code,
  ConfigPayload,
  HeartbeatPayload,
  type AgentConfig,
  type api,
  type Input,
} from '@ksp/contracts';
import type { FastifyRequest } from 'fastify';
import { clientConfigEpoch, configClientOf, type AgentConfigSource } from '../../platform/agent-config.js';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { Journal } from '../../platform/db/journal.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { invalid, KspError } from '../../platform/errors.js';
import type { RequestMeta } from '../../platform/http/route.js';
import { RefusalCounter } from '../../platform/http/refusal-counter.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  agentRead,
  CheckedCertificates,
  HEARTBEAT_REFUSALS_PER_MINUTE,
  judgeAgentCall,
  type RefusalReason,
  type SignedCall,
} from './agent-auth.js';
import type { ConfigWaiters } from './client.config.js';
import {
  readAgentRow,
  readClient,
  revokeActiveClient,
  spendTimestamp,
  type AgentFacts,
} from './client.store.js';
import { createTouch } from './client.touch.js';
import { agentSubject, iso } from './client.view.js';

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

const emptyConfig = (clientId: string, version: number): AgentConfig => ({
  client_id: clientId,
  version,
  profile: null,
  guard_points: [],
  keys: [],
});

const badPayload = (err: unknown) =>
  invalid('client.auth.payload', {
    reason: err instanceof SyntaxError ? 'JSON' : err instanceof Error ? err.message.slice(0, 200) : 'error',
  });

/** What the agents' calls are built from. */
export interface AgentCallDeps {
  db: Db;
  /** For the group commit of accepted agent calls (`touch`). */
  journal: Pick<Journal, 'commitThenFlush'>;
  clock: Clock;
  audit: AuditWriter;
  certs: () => ModuleServices['certs'];
  /** The TDE client module's documents, when it is installed. */
  agentConfig?: () => AgentConfigSource | undefined;
  /** Agents waiting on this node (none: config calls answer at once). */
  waiters?: ConfigWaiters | undefined;
}

/**
 * The agents' signed calls (README.md): heartbeats, the config channel, other modules' signed
 * calls, and what the agent listener's thread asks of this node. Every refusal is audited and
 * counted toward its address's limit of the minute.
 */
export function createAgentCalls(deps: AgentCallDeps) {
  const { db, clock, audit } = deps;
  const now = () => clock().getTime();
  const touch = createTouch(deps.journal);

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
  /** The audit record of the first call of the minute an address's refusals stopped (HTTP 429). */
  async function auditRateLimit(meta: RequestMeta, action: string) {
    await audit.write(db, {
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
  /** Answers 429 when the address is past its refusals of the minute. */
  async function checkLimit(meta: RequestMeta, action: string) {
    const over = refusals.overLimit(meta.ip);
    if (over !== 'no') await rateLimited(meta, action, over);
  }
  /** The agent listener's port while it listens (heartbeat answers name it); null: none. */
  let heartbeatPort: number | null = null;

  /** Client certificates this node checked in full (agent-auth.ts). */
  const checkedCerts = new CheckedCertificates();

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
      await revokeActiveClient(db, row.id, iso(at));
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
    await checkLimit(meta, action);
    const read = agentRead(await readAgentRow(db, body.client_id));
    await checkLimit(meta, action);
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

  /** Audits a refused agent call and gives the error to answer (4001 for an authentication refusal). */
  async function refused(meta: RequestMeta, body: SignedCall, action: string, err: unknown) {
    if (isRateLimited(err)) return err;
    const refusal = err instanceof AgentRefusal ? err : undefined;
    await audit.write(db, {
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

  /** The client's document from the TDE client module's `agentConfig`, or an empty one without it. */
  async function composeConfig(row: ClientTable): Promise<AgentConfig> {
    const source = deps.agentConfig?.();
    if (!source) return emptyConfig(row.id, await clientConfigEpoch(db, row.domain_id));
    return source.configFor(db, configClientOf(row));
  }

  /** An agent's delete acknowledgement: the client is deleted with the call's timestamp, audited. */
  async function acknowledgeDelete(
    meta: RequestMeta,
    row: ClientTable,
    timestamp: number,
    at: number,
    facts: AgentFacts,
  ) {
    await db.transaction().execute(async (trx) => {
      const spent = await spendTimestamp(trx, row.id, timestamp, {
        ...facts,
        state: 'deleted',
        last_seen_at: iso(at),
        updated_at: iso(at),
      });
      // A concurrent call with the same or a newer timestamp won: this one is a replay.
      if (!spent) throw new AgentRefusal('stale', row);
      await audit.write(trx, {
        who: agentSubject(row),
        action: 'client.delete-ack',
        target: row.name,
        result: 'success',
        ip: meta.ip,
        objectId: row.id,
      });
    });
  }

  return {
    /** The listener's port while it listens, for the answers that name it. */
    heartbeatPort: () => heartbeatPort,

    /**
     * What the agent listener's thread (agent-listener.ts) asks of this node: it judges a
     * heartbeat with the same code (agent-auth.ts) and leaves writes and other modules here.
     */
    listener: {
      /** Records an accepted heartbeat in the group commit; false: a replay lost the race. */
      touch: (id: string, timestamp: number, at: number, facts: AgentFacts) =>
        touch(id, timestamp, at, facts),
      fullCheck: (row: ClientTable, der: Buffer) => checkCertificateInFull(row, der, now()),
      /** Audits a refusal the listener decided (and counted); counted here too, for the API port. */
      async refused(
        meta: RequestMeta,
        clientId: string,
        row: Pick<ClientTable, 'id' | 'name' | 'domain_id'> | undefined,
        reason: string,
      ) {
        refusals.count(meta.ip);
        await audit.write(db, {
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
        if (!(await spendTimestamp(db, row.id, body.timestamp, { last_seen_at: iso(at) })))
          throw new AgentRefusal('stale', row);
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
        if (acknowledged) await acknowledgeDelete(meta, row, body.timestamp, at, facts);
        else if (!(await touch(row.id, body.timestamp, at, facts))) throw new AgentRefusal('stale', row);
        const result = acknowledged || row.state !== 'active' ? ('deleted' as const) : ('enrolled' as const);
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
        const now = await readClient(db, row.id);
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
