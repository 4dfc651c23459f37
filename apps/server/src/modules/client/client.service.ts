import type { ModuleServices } from '../../platform/module.js';
import { HEARTBEAT_REFUSALS_PER_MINUTE } from './agent-auth.js';
import { createAgentCalls, type AgentCallDeps } from './client.agent-calls.js';
import { createEnrolment } from './client.enrolment.js';
import { createKmipClients } from './client.kmip.js';
import { createClientLifecycle } from './client.lifecycle.js';

export { HEARTBEAT_REFUSALS_PER_MINUTE };

/**
 * Clients (README.md): enrolment with a registration token and a CSR, the agent's signed
 * heartbeats, status from heartbeat age, and the console's list/detail/revoke/delete/renew.
 */
export function createClientService(
  deps: AgentCallDeps & {
    tokens: () => ModuleServices['registrationTokens'];
    license: () => ModuleServices['license'];
    roles: () => ModuleServices['roles'];
    domains: () => ModuleServices['domains'];
  },
) {
  const { heartbeatPort, ...agentCalls } = createAgentCalls(deps);
  return {
    ...createClientLifecycle(deps),
    enrol: createEnrolment({ ...deps, heartbeatPort }),
    /** KMIP clients (client.kmip.ts): the kmip module's console calls and connections. */
    kmip: createKmipClients(deps),
    ...agentCalls,
  };
}

export type ClientService = ReturnType<typeof createClientService>;
