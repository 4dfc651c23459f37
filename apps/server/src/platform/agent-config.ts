import { sql } from 'kysely';
import type { AgentConfig, AgentKey, AgentPolicy } from '@ksp/contracts';
import type { Executor } from './db/database.js';
import type { ClientTable } from './db/schema.js';

/**
 * How the parts that make an agent's configuration meet (docs/modules.md#clients-and-agents):
 *
 * - the TDE policy module offers `tdePolicies` (policies compiled for agents);
 * - the TDE client module offers `agentConfig` (a client's whole document: profile, guard
 *   points of the client and its groups, their policies, the keys wrapped to the client) and
 *   `tdeUsage` (what still refers to a policy or a profile, so deletes can be refused);
 * - the client module's config channel asks `agentConfig` and delivers it.
 *
 * Every change that alters what some agent of a domain receives calls `bumpClientConfig` in
 * the transaction that makes the change; the channel watches `clientConfigEpoch`.
 */

/** A policy of a domain as other modules see it. */
export interface TdePolicySummary {
  id: string;
  name: string;
  type: AgentPolicy['type'];
}

export interface TdePolicyCatalog {
  /** The policy when it is the domain's; undefined otherwise (another domain's, or none). */
  describe(db: Executor, domainId: string, policyId: string): Promise<TdePolicySummary | undefined>;
  /** The policy compiled for an agent (sets inlined, rules ordered); undefined as above. */
  compile(db: Executor, domainId: string, policyId: string): Promise<AgentPolicy | undefined>;
  /**
   * The profile by name when it is the domain's (the default one when `name` is null). `wrap`
   * wraps a fresh content key to the agent (as its keys are); the profile's secrets (syslog TLS
   * client keys) are sealed with it, and left out without it.
   */
  profile(
    db: Executor,
    domainId: string,
    name: string | null,
    wrap?: (secretId: string, material: Buffer) => AgentKey | undefined,
  ): Promise<AgentConfig['profile']>;
  /** The domain's policies whose key rules name one of `keyIds` (a key in use cannot be deleted). */
  policiesUsingKeys(
    db: Executor,
    domainId: string,
    keyIds: string[],
  ): Promise<{ keyId: string; policy: string }[]>;
}

/** The client a configuration is composed for (the client module's row, as far as needed). */
export interface ConfigClient {
  id: string;
  domain_id: string;
  type: string;
  profile: string | null;
  /** Client group ids. */
  groups: string[];
  /** The client's current certificate: keys are wrapped to its public key. */
  cert_pem: string;
}

/** What `configFor` reads of a stored client row (its groups are kept as JSON). */
export function configClientOf(row: ClientTable): ConfigClient {
  return {
    id: row.id,
    domain_id: row.domain_id,
    type: row.type,
    profile: row.profile,
    groups: JSON.parse(row.groups) as string[],
    cert_pem: row.cert_pem,
  };
}

export interface AgentConfigSource {
  /** The client's document; `version` is the domain's epoch at the time of reading. */
  configFor(db: Executor, client: ConfigClient): Promise<AgentConfig>;
}

export interface TdeUsage {
  /** How many guard points use the policy (a policy in use cannot be deleted). */
  guardPointsUsingPolicy(db: Executor, domainId: string, policyId: string): Promise<number>;
  /** How many clients and client groups use the profile. */
  usersOfProfile(db: Executor, domainId: string, profileName: string): Promise<number>;
}

declare module './module.js' {
  interface ModuleServices {
    /** The TDE policy module: policies compiled for agents, profiles. */
    tdePolicies: TdePolicyCatalog;
    /** The TDE client module: a client's whole configuration document. */
    agentConfig: AgentConfigSource;
    /** The TDE client module: what refers to policies and profiles. */
    tdeUsage: TdeUsage;
  }
}

const bumpListeners = new Set<(domainId: string) => void>();

/**
 * The config channel's in-process fast path: `listener` hears of every bump this process makes
 * (inside the change's transaction, so before its commit: a listener re-reads the epoch a moment
 * later, and the channel's periodic read catches changes made on other nodes). Returns the
 * function that stops listening.
 */
export function onClientConfigBump(listener: (domainId: string) => void): () => void {
  bumpListeners.add(listener);
  return () => bumpListeners.delete(listener);
}

/**
 * Raises the configuration epoch of the domain's agents. Call it inside the transaction of
 * the change: the channel then answers every waiting agent of the domain with its new document.
 */
export async function bumpClientConfig(db: Executor, domainId: string, at: Date): Promise<void> {
  await db
    .insertInto('client_config_epoch')
    .values({ domain_id: domainId, seq: 1, updated_at: at.toISOString() })
    .onConflict((oc) =>
      oc.column('domain_id').doUpdateSet({
        seq: sql`client_config_epoch.seq + 1`,
        updated_at: at.toISOString(),
      }),
    )
    .execute();
  for (const listener of bumpListeners) listener(domainId);
}

/** The domain's configuration epoch (0 before its first change). */
export async function clientConfigEpoch(db: Executor, domainId: string): Promise<number> {
  const row = await db
    .selectFrom('client_config_epoch')
    .select('seq')
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
  return row ? Number(row.seq) : 0;
}
