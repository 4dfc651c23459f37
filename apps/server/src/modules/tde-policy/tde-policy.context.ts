import { Code } from '@ksp/contracts';
import { bumpClientConfig, type TdeUsage } from '../../platform/agent-config.js';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { KspError } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import { elementsOfIds, setElementRefs, type RefKind } from './tde-policy.store.js';

/** What the module's parts are built from (tde-policy.module.ts). */
export interface TdePolicyDeps {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  /** The TDE client module's `tdeUsage`; absent, nothing uses a policy or a profile. */
  usage: () => TdeUsage | undefined;
  /** Syslog TLS client keys of profiles are sealed under the domain KEK. */
  keyring: Keyring;
}

/** The object of a change: its id when known, and the name the record shows. */
export interface ChangeTarget {
  id: string | null;
  name: string;
}

/**
 * What the elements, policies, profiles and the catalog share: the database, the clock, the
 * audit writer, the domain sealer, the refusal record of a change and the lookups of sets and
 * usage.
 */
export function createPolicyContext(deps: TdePolicyDeps) {
  const { db, clock, audit } = deps;

  /** The success record of a change, in its transaction. */
  const recordChange = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: ChangeTarget,
    details?: Record<string, string | number>,
  ) => audit.byCaller(trx, actor, meta, { action, target: target.name, objectId: target.id, details });

  return {
    ...deps,
    sealer: createDomainSealer({ keyring: deps.keyring }),

    recordChange,

    /**
     * The transaction of a save: `write` the row of `from`, then the elements it refers to and
     * the domain's raised epoch; `finish` (its record and the answer) runs in the same transaction.
     */
    saveReferrer<T>(
      domainId: string,
      from: { kind: RefKind; id: string; refs: Iterable<string> },
      at: Date,
      write: (trx: Executor) => Promise<void>,
      finish: (trx: Executor) => Promise<T>,
    ): Promise<T> {
      return db.transaction().execute(async (trx) => {
        await write(trx);
        await setElementRefs(trx, domainId, from.kind, from.id, from.refs);
        await bumpClientConfig(trx, domainId, at);
        return finish(trx);
      });
    },

    /**
     * The transaction of a delete: `check` refuses while something still uses `target`, then
     * `remove` deletes it, the domain's epoch is raised and the delete recorded.
     */
    deleteChecked(
      actor: Actor,
      meta: RequestMeta,
      record: { action: string; target: ChangeTarget; details?: Record<string, string | number> },
      check: (trx: Executor) => Promise<void>,
      remove: (trx: Executor) => Promise<void>,
    ): Promise<{ deleted: number }> {
      return db.transaction().execute(async (trx) => {
        await check(trx);
        await remove(trx);
        await bumpClientConfig(trx, actor.domainId, clock());
        await recordChange(trx, actor, meta, record.action, record.target, record.details);
        return { deleted: 1 };
      });
    },

    /**
     * Runs a change; a failure is recorded (its message key as the reason, `internal error` for
     * anything else) and rethrown. A not-found refusal records no target name: the name the
     * caller sent is no object of its domain (a guess at another domain's name stays out of this
     * domain's log); the id, if any, is kept.
     */
    async change<T>(
      actor: Actor,
      meta: RequestMeta,
      action: string,
      target: ChangeTarget,
      run: () => Promise<T>,
    ): Promise<T> {
      try {
        return await run();
      } catch (err) {
        const refusal = err instanceof KspError ? err : undefined;
        await audit.byCaller(db, actor, meta, {
          action,
          target: refusal?.code === Code.NOT_FOUND ? '' : target.name,
          objectId: target.id,
          result: 'failure',
          details: { reason: refusal?.messageKey ?? 'internal error' },
        });
        throw err;
      }
    },

    /** The domain's sets of the given ids, by id. */
    async setsById(q: Executor, domainId: string, ids: Iterable<string>) {
      const rows = await elementsOfIds(q, domainId, [...new Set(ids)]);
      return new Map(rows.map((r) => [r.id, r]));
    },

    /** How many guard points use the policy (none without the TDE client module). */
    guardPoints: async (q: Executor, domainId: string, policyId: string) =>
      (await deps.usage()?.guardPointsUsingPolicy(q, domainId, policyId)) ?? 0,

    /** How many clients and groups use the profile (none without the TDE client module). */
    profileUsers: async (q: Executor, domainId: string, name: string) =>
      (await deps.usage()?.usersOfProfile(q, domainId, name)) ?? 0,
  };
}

export type PolicyContext = ReturnType<typeof createPolicyContext>;
