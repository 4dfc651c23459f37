import type { AgentAuthBinary, AgentConfig, AgentGuardPoint, AgentKey, AgentPolicy } from '@ksp/contracts';
import { clientConfigEpoch, type AgentConfigSource, type ConfigClient } from '../../platform/agent-config.js';
import type { Executor } from '../../platform/db/database.js';
import { wrapForAgent } from './agent-keys.js';
import type { TdeClientDeps } from './tde-client.context.js';
import {
  clientGuardPoints,
  effectiveAuthBinaries,
  groupsOfClient,
  signatureSets,
} from './tde-client.effective.js';
import { configClientRow } from './tde-client.store.js';

/** The agent's whole document (platform/agent-config.ts, contracts/agent.ts). */
export function createAgentConfig(deps: Pick<TdeClientDeps, 'policies' | 'keyVault'>): AgentConfigSource {
  /** The keys the key rules of enabled guard points' policies name, wrapped to the client. */
  async function wrappedKeys(
    trx: Executor,
    client: ConfigClient,
    name: string,
    guardPoints: AgentGuardPoint[],
  ) {
    const keyIds = new Set<string>();
    for (const gp of guardPoints)
      if (gp.enabled && gp.policy)
        for (const rule of gp.policy.key_rules) if (rule.key_id) keyIds.add(rule.key_id);
    const keys: AgentKey[] = [];
    const vault = deps.keyVault();
    for (const keyId of keyIds) {
      const key = await vault.agentKey(trx, client.domain_id, keyId, { id: client.id, name });
      if (!key) continue;
      try {
        const wrapped = wrapForAgent(client.cert_pem, key);
        if (wrapped) keys.push(wrapped);
      } finally {
        key.material.fill(0);
      }
    }
    return keys;
  }

  /** The client's authorised binaries, each with its signature set's hashes when it names one. */
  async function authBinaries(trx: Executor, client: ConfigClient): Promise<AgentAuthBinary[]> {
    const binaries = await effectiveAuthBinaries(trx, client.domain_id, client.id);
    const sets = await signatureSets(
      trx,
      client.domain_id,
      binaries.map((b) => b.row.signature_set_id),
    );
    return binaries.map(({ row, origin }) => ({
      filename: row.filename,
      privilege: row.privilege as AgentAuthBinary['privilege'],
      // A set gone: no hash can match, so the binary is no longer trusted (never "any").
      ...(row.signature_set_id ? { sha256: sets.get(row.signature_set_id)?.sha256 ?? [] } : {}),
      origin,
    }));
  }

  return {
    async configFor(trx: Executor, client: ConfigClient): Promise<AgentConfig> {
      // Read first: a change committed while composing raises the epoch past this version.
      const version = await clientConfigEpoch(trx, client.domain_id);
      const row = await configClientRow(trx, client.domain_id, client.id);
      const name = row?.name ?? client.id;
      const groups = await groupsOfClient(trx, client.domain_id, client.id);
      // The profile as stored now: the caller's row may have been read before a change (a config
      // call held open across a set-profile).
      const own = row ? row.profile : client.profile;
      const profileName = own ?? groups.find((g) => g.profile !== null)?.profile ?? null;
      const policies = deps.policies();
      const profile = await policies.profile(trx, client.domain_id, profileName, (id, material) =>
        wrapForAgent(client.cert_pem, { id, name: id, version: 1, material }),
      );
      const points = await clientGuardPoints(trx, client.domain_id, client.id);
      const compiled = new Map<string, AgentPolicy | undefined>();
      const guardPoints: AgentGuardPoint[] = [];
      for (const { gp, origin } of points) {
        let policy: AgentPolicy | undefined;
        if (gp.policy_id) {
          if (!compiled.has(gp.policy_id))
            compiled.set(gp.policy_id, await policies.compile(trx, client.domain_id, gp.policy_id));
          policy = compiled.get(gp.policy_id);
        }
        guardPoints.push({
          id: gp.id,
          path: gp.path,
          type: gp.type,
          // A policy gone (or no longer the domain's) leaves the guard point unapplied.
          enabled: gp.enabled === 1 && (gp.type === 'rwp' || policy !== undefined),
          origin,
          policy: policy ?? null,
        });
      }
      return {
        client_id: client.id,
        version,
        profile,
        guard_points: guardPoints,
        keys: await wrappedKeys(trx, client, name, guardPoints),
        auth_binaries: await authBinaries(trx, client),
        client_locked: Number(row?.client_locked ?? 0) !== 0,
      };
    },
  };
}
