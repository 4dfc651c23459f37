import type { TdeUsage } from '../../platform/agent-config.js';
import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import { createAgentConfig } from './tde-client.agent-config.js';
import { createAuthBinaryCalls } from './tde-client.auth-binaries.js';
import { createClientCalls } from './tde-client.clients.js';
import { createClientContext, type TdeClientDeps } from './tde-client.context.js';
import { createGroupCalls } from './tde-client.groups.js';
import { createGuardPointCalls } from './tde-client.guard-points.js';
import { guardPointCountUsing, profileUserCount } from './tde-client.store.js';

/**
 * TDE and RDM clients (README.md): the client pages over the client module's lifecycle, client
 * groups, guard points, authorised binaries, and the composition of each agent's configuration
 * document, one file per job. `audit` defaults to a writer stamped with `clock`.
 */
export function createTdeClientService(deps: Omit<TdeClientDeps, 'audit'> & { audit?: AuditWriter }) {
  const ctx = createClientContext({ ...deps, audit: deps.audit ?? createAuditWriter(deps.clock) });
  const tdeUsage: TdeUsage = {
    guardPointsUsingPolicy: guardPointCountUsing,
    usersOfProfile: profileUserCount,
  };
  return {
    clients: createClientCalls(ctx),
    authBinaries: createAuthBinaryCalls(ctx),
    guardPoints: createGuardPointCalls(ctx),
    groups: createGroupCalls(ctx),
    agentConfig: createAgentConfig(ctx),
    tdeUsage,
  };
}

export type TdeClientService = ReturnType<typeof createTdeClientService>;
