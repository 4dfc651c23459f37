import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { findClientRow, findGroupRow, findGuardPointRow } from './tde-client.store.js';

/** The client types these pages serve: `tde` (the CTE sub-console) and `rdm`. */
export type AgentType = 'tde' | 'rdm';

/** What the module's parts are built from (tde-client.module.ts); collaborators are looked up lazily. */
export interface TdeClientDeps {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  clients: () => ModuleServices['clients'];
  policies: () => ModuleServices['tdePolicies'];
  keyVault: () => ModuleServices['keyVault'];
}

/** Paths compare without trailing separators ("/data/" is "/data"). */
export function normalizePath(path: string): string {
  const trimmed = path.trim();
  if (/^[A-Za-z]:\\$/u.test(trimmed) || trimmed === '/') return trimmed;
  return trimmed.replace(/[\\/]+$/u, '');
}

/**
 * What the clients, guard points, groups and authorised binaries share: the dependencies, the
 * records of a change and of its refusal, and the lookups of the object a call is about (in
 * the caller's domain; another domain's answers 4040).
 */
export function createClientContext(deps: TdeClientDeps) {
  const { db, audit } = deps;

  /** The success record of a change, in its transaction. */
  const record = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    objectId: string | null,
    details: Record<string, string | number | boolean | null> = {},
  ) => audit.byCaller(trx, actor, meta, { action, target, objectId, details });

  /** Runs a change; a refusal (KspError) is recorded with its message key as the reason, then rethrown. */
  async function refusalRecorded<T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KspError)
        await audit.byCaller(db, actor, meta, {
          action,
          target,
          objectId: null,
          result: 'failure',
          details: { reason: err.messageKey },
        });
      throw err;
    }
  }

  /** A client of the type in the actor's domain (another domain's or type's: 4040). */
  async function findClient(actor: Actor, id: string, type: AgentType, trx: Executor = db) {
    const row = await findClientRow(trx, actor.domainId, id, type);
    if (!row) throw notFound('client.notFound', { id });
    return row;
  }

  async function findGroup(actor: Actor, id: string, trx: Executor = db) {
    const row = await findGroupRow(trx, actor.domainId, id);
    if (!row) throw notFound('tdeClient.groupNotFound', { id });
    return row;
  }

  /** A guard point of the actor's domain that the sub-console of `type` manages (groups: TDE only). */
  async function findGuardPoint(actor: Actor, id: string, type: AgentType) {
    const row = await findGuardPointRow(db, actor.domainId, id);
    if (!row || (row.client_id ? row.client_type !== type : type !== 'tde'))
      throw notFound('tdeClient.guardPointNotFound', { id });
    return row;
  }

  /** A refusal of a client or group the caller names: recorded as the change's, naming the id. */
  const found = <T>(actor: Actor, meta: RequestMeta, action: string, id: string, lookup: () => Promise<T>) =>
    refusalRecorded(actor, meta, action, id, lookup);

  return {
    ...deps,
    record,
    refusalRecorded,
    found,
    findClient,
    findGroup,
    findGuardPoint,

    /** Refuses a profile name the domain has no profile of (null: the default, always there). */
    async checkProfile(domainId: string, name: string | null, trx: Executor = db) {
      if (name === null) return;
      const profile = await deps.policies().profile(trx, domainId, name);
      if (!profile) throw invalid('tdeClient.profileNotFound', { name });
    },

    /** Refuses a body naming both or neither of a client and a group (or a group outside TDE). */
    checkTarget(
      body: { client_id?: string | undefined; group_id?: string | undefined },
      type: AgentType = 'tde',
    ) {
      if (!body.client_id === !body.group_id || (body.group_id && type !== 'tde'))
        throw invalid('tdeClient.target');
    },
  };
}

export type ClientContext = ReturnType<typeof createClientContext>;
