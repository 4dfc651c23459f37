import { api, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const kadpClientKeys = {
  all: ['kadp-client'] as const,
  list: ['kadp-client', 'list'] as const,
  detail: (id: string) => ['kadp-client', 'detail', id] as const,
};

export function listKadpClients(query: QueryOf<typeof api.client.list>) {
  return call(api.client.list, { query });
}

export function fetchKadpClient(id: string) {
  return call(api.client.detail, { query: { id } });
}

export function revokeKadpClient(id: string) {
  return call(api.client.revoke, { body: { id } });
}

export function deleteKadpClient(id: string) {
  return call(api.client.delete, { body: { id } });
}

export function forceDeleteKadpClient(id: string) {
  return call(api.client.forceDelete, { body: { id } });
}

export function renewKadpClient(id: string) {
  return call(api.client.renew, { body: { id } });
}

/** A KADP client's recent operations (newest first) and their count. */
export function listKadpClientOperations(id: string, page = 1, page_size = 10) {
  return call(api.kadpOps.operations, { query: { id, page, page_size } });
}
