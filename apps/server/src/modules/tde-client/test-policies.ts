import type { AgentPolicy, AgentProfile } from '@ksp/contracts';
import type { TdePolicyCatalog } from '../../platform/agent-config.js';

/**
 * TESTS ONLY: a stand-in for the TDE policy module's `tdePolicies` service (AppOptions.services),
 * kept in this one file so that the real module replaces it after the merge. Policies and
 * profiles live in memory per domain; `describe`/`compile` answer only the domain's own.
 */
export function createTestPolicies() {
  const policies = new Map<string, { domainId: string; policy: AgentPolicy }>();
  const profiles = new Map<string, AgentProfile>();
  const profileKey = (domainId: string, name: string) => `${domainId}\u0000${name}`;
  const defaultProfile: AgentProfile = {
    name: 'DefaultClientProfile',
    log_threshold: 'INFO',
    upload_enabled: true,
    upload_max_interval_s: 60,
    rwp_operation: 'permit',
    rwp_trusted_processes: [],
  };
  const catalog: TdePolicyCatalog = {
    policiesUsingKeys(_db, domainId, keyIds) {
      return Promise.resolve(
        [...policies.values()]
          .filter((p) => p.domainId === domainId)
          .flatMap(({ policy }) =>
            policy.key_rules
              .filter((r) => r.key_id !== null && keyIds.includes(r.key_id))
              .map((r) => ({ keyId: r.key_id!, policy: policy.name })),
          ),
      );
    },
    describe(_db, domainId, policyId) {
      const found = policies.get(policyId);
      if (!found || found.domainId !== domainId) return Promise.resolve(undefined);
      return Promise.resolve({ id: found.policy.id, name: found.policy.name, type: found.policy.type });
    },
    compile(_db, domainId, policyId) {
      const found = policies.get(policyId);
      return Promise.resolve(
        found && found.domainId === domainId ? structuredClone(found.policy) : undefined,
      );
    },
    profile(_db, domainId, name) {
      if (name === null) return Promise.resolve(defaultProfile);
      return Promise.resolve(profiles.get(profileKey(domainId, name)) ?? null);
    },
  };
  return {
    catalog,
    addPolicy(domainId: string, policy: AgentPolicy) {
      policies.set(policy.id, { domainId, policy });
    },
    removePolicy(id: string) {
      policies.delete(id);
    },
    addProfile(domainId: string, profile: Partial<AgentProfile> & { name: string }) {
      profiles.set(profileKey(domainId, profile.name), { ...defaultProfile, ...profile });
    },
  };
}
