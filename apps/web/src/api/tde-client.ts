import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

/** The client sub-consoles: TDE (`/cte`, `api.tdeClient`) and RDM (`/rdm`, `api.rdmClient`). */
export type AgentArea = 'cte' | 'rdm';
const callsOf = (area: AgentArea) => (area === 'cte' ? api.tdeClient : api.rdmClient);

export const agentClientKeys = (area: AgentArea) => ({
  all: [`${area}-client`] as const,
  list: [`${area}-client`, 'list'] as const,
  detail: (id: string) => [`${area}-client`, 'detail', id] as const,
  guardPoints: (target: string) => [`${area}-client`, 'guard-points', target] as const,
});
export const clientGroupKeys = {
  all: ['cte-client-group'] as const,
  list: ['cte-client-group', 'list'] as const,
  detail: (id: string) => ['cte-client-group', 'detail', id] as const,
};

export const listAgentClients = (area: AgentArea, query: QueryOf<typeof api.tdeClient.list>) =>
  call(callsOf(area).list, { query });
export const fetchAgentClient = (area: AgentArea, id: string) =>
  call(callsOf(area).detail, { query: { id } });
export const revokeAgentClient = (area: AgentArea, id: string) =>
  call(callsOf(area).revoke, { body: { id } });
export const deleteAgentClient = (area: AgentArea, id: string) =>
  call(callsOf(area).delete, { body: { id } });
export const forceDeleteAgentClient = (area: AgentArea, id: string) =>
  call(callsOf(area).forceDelete, { body: { id } });
export const renewAgentClient = (area: AgentArea, id: string) => call(callsOf(area).renew, { body: { id } });
export const setAgentClientProfile = (area: AgentArea, id: string, profile: string | null) =>
  call(callsOf(area).setProfile, { body: { id, profile } });

export const setAgentClientCommunication = (area: AgentArea, id: string, enabled: boolean) =>
  call(callsOf(area).setCommunication, { body: { id, enabled } });

export const listGuardPoints = (area: AgentArea, query: QueryOf<typeof api.tdeClient.guardPoints>) =>
  call(callsOf(area).guardPoints, { query });
export const createGuardPoint = (area: AgentArea, body: BodyOf<typeof api.tdeClient.guardPointCreate>) =>
  call(callsOf(area).guardPointCreate, { body });
export const setGuardPointEnabled = (area: AgentArea, id: string, enabled: boolean) =>
  call(callsOf(area).guardPointSetEnabled, { body: { id, enabled } });
export const deleteGuardPoint = (area: AgentArea, id: string) =>
  call(callsOf(area).guardPointDelete, { body: { id } });

export const listClientGroups = (query: QueryOf<typeof api.tdeClient.groupList>) =>
  call(api.tdeClient.groupList, { query });
export const fetchClientGroup = (id: string) => call(api.tdeClient.groupDetail, { query: { id } });
export const createClientGroup = (body: BodyOf<typeof api.tdeClient.groupCreate>) =>
  call(api.tdeClient.groupCreate, { body });
export const updateClientGroup = (body: BodyOf<typeof api.tdeClient.groupUpdate>) =>
  call(api.tdeClient.groupUpdate, { body });
export const deleteClientGroup = (id: string) => call(api.tdeClient.groupDelete, { body: { id } });
export const addGroupMembers = (id: string, client_ids: string[]) =>
  call(api.tdeClient.groupAddMembers, { body: { id, client_ids } });
export const removeGroupMembers = (id: string, client_ids: string[]) =>
  call(api.tdeClient.groupRemoveMembers, { body: { id, client_ids } });

export const lockAgentClient = (id: string, locked: boolean) =>
  call(api.tdeClient.lock, { body: { id, locked } });
export const authBinaryKeys = {
  all: ['cte-auth-binaries'] as const,
  of: (target: string) => ['cte-auth-binaries', target] as const,
};
export const listAuthBinaries = (query: QueryOf<typeof api.tdeClient.authBinaries>) =>
  call(api.tdeClient.authBinaries, { query });
export const setAuthBinaries = (body: BodyOf<typeof api.tdeClient.authBinariesSet>) =>
  call(api.tdeClient.authBinariesSet, { body });
