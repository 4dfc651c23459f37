import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const domainKeys = {
  all: ['domain'] as const,
  options: ['domain', 'options'] as const,
  members: (id: string) => ['domain', 'members', id] as const,
};

export function listDomains(query: QueryOf<typeof api.domain.list>) {
  return call(api.domain.list, { query });
}

/** Every domain (for selects and for naming a parent). */
export async function allDomains() {
  return (await call(api.domain.list, { query: { page: 1, page_size: 1000 } })).data;
}

export function domainMembers(id: string) {
  return call(api.domain.users, { query: { id } });
}

export function createDomain(body: BodyOf<typeof api.domain.create>) {
  return call(api.domain.create, { body });
}

export function updateDomain(body: BodyOf<typeof api.domain.update>) {
  return call(api.domain.update, { body });
}

export function deleteDomains(ids: string[]) {
  return call(api.domain.delete, { body: { ids } });
}
