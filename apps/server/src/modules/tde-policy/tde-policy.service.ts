import { createTdePolicyCatalog } from './tde-policy.catalog.js';
import { createPolicyCompiler } from './tde-policy.compile.js';
import { createPolicyContext, type TdePolicyDeps } from './tde-policy.context.js';
import { createElementCalls } from './tde-policy.elements.js';
import { createPolicyCalls } from './tde-policy.policies.js';
import { createProfileSecrets } from './tde-policy.profile-secrets.js';
import { createProfileCalls } from './tde-policy.profiles.js';

/**
 * Policy elements, TDE and RDM policies and client profiles (README.md), composed from one file
 * per job. Every query is limited to the caller's domain; every change raises the domain's agent
 * configuration epoch in its transaction and is audited, and so is every refusal.
 */
export function createTdePolicyService(deps: TdePolicyDeps) {
  const ctx = createPolicyContext(deps);
  const compiler = createPolicyCompiler(ctx);
  const secrets = createProfileSecrets(ctx);
  return {
    catalog: createTdePolicyCatalog(ctx, compiler, secrets),
    ...createElementCalls(ctx),
    ...createPolicyCalls(ctx, compiler),
    ...createProfileCalls(ctx, secrets),
  };
}

export type TdePolicyService = ReturnType<typeof createTdePolicyService>;
