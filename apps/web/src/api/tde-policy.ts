import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

/**
 * The TDE / RDM policy calls (docs/api.md "TDE and RDM policies"). `area` picks the calls of
 * the sub-console a page is in: the RDM pages read elements and manage RDM policies through
 * the `/v1/ksp/rdm/...` calls; element and profile writes are TDE calls (`cte:write`).
 */
export type PolicyArea = 'cte' | 'rdm';

export const tdePolicyKeys = {
  all: ['tde-policy'] as const,
  elements: ['tde-policy', 'elements'] as const,
  element: (id: string) => ['tde-policy', 'elements', 'detail', id] as const,
  policies: ['tde-policy', 'policies'] as const,
  policy: (id: string) => ['tde-policy', 'policies', 'detail', id] as const,
  profiles: ['tde-policy', 'profiles'] as const,
  profile: (name: string) => ['tde-policy', 'profiles', 'detail', name] as const,
  keys: ['tde-policy', 'keys'] as const,
};

const calls = (area: PolicyArea) => (area === 'rdm' ? api.rdmPolicy : api.tdePolicy);

export const listElements = (area: PolicyArea, query: QueryOf<typeof api.tdePolicy.elementList>) =>
  call(calls(area).elementList, { query });
export const fetchElement = (area: PolicyArea, id: string) =>
  call(calls(area).elementDetail, { query: { id } });
export const createElement = (body: BodyOf<typeof api.tdePolicy.elementCreate>) =>
  call(api.tdePolicy.elementCreate, { body });
export const updateElement = (body: BodyOf<typeof api.tdePolicy.elementUpdate>) =>
  call(api.tdePolicy.elementUpdate, { body });
export const deleteElement = (id: string) => call(api.tdePolicy.elementDelete, { body: { id } });

export const listPolicies = (area: PolicyArea, query: QueryOf<typeof api.tdePolicy.policyList>) =>
  call(calls(area).policyList, { query });
export const fetchPolicy = (area: PolicyArea, id: string) =>
  call(calls(area).policyDetail, { query: { id } });
export const createPolicy = (area: PolicyArea, body: BodyOf<typeof api.tdePolicy.policyCreate>) =>
  area === 'rdm'
    ? call(api.rdmPolicy.policyCreate, { body: { ...body, type: 'rdm' } })
    : call(api.tdePolicy.policyCreate, { body });
export const updatePolicy = (area: PolicyArea, body: BodyOf<typeof api.tdePolicy.policyUpdate>) =>
  call(calls(area).policyUpdate, { body });
export const deletePolicy = (area: PolicyArea, id: string) =>
  call(calls(area).policyDelete, { body: { id } });
export const listKeyOptions = () => call(api.tdePolicy.keyOptions, {});

export const listProfiles = (query: QueryOf<typeof api.tdePolicy.profileList>) =>
  call(api.tdePolicy.profileList, { query });
export const fetchProfile = (name: string) => call(api.tdePolicy.profileDetail, { query: { name } });
export const createProfile = (body: BodyOf<typeof api.tdePolicy.profileCreate>) =>
  call(api.tdePolicy.profileCreate, { body });
export const updateProfile = (body: BodyOf<typeof api.tdePolicy.profileUpdate>) =>
  call(api.tdePolicy.profileUpdate, { body });
export const deleteProfile = (name: string) => call(api.tdePolicy.profileDelete, { body: { name } });
