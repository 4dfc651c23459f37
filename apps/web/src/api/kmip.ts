import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

/** Query keys of the KMIP clients page (docs/kmip.md). */
export const kmipKeys = {
  all: ['kmip'] as const,
  status: ['kmip', 'status'] as const,
  clients: ['kmip', 'clients'] as const,
};

/** The KMIP listener of this node: listening, port, versions, limits, server certificate. */
export function fetchKmipStatus() {
  return call(api.kmip.status);
}

export function listKmipClients(query: QueryOf<typeof api.kmip.list>) {
  return call(api.kmip.list, { query });
}

/** Creates a client and has its CSR signed: answers the client, its certificate and the CA chain. */
export function createKmipClient(body: BodyOf<typeof api.kmip.create>) {
  return call(api.kmip.create, { body });
}

/** Changes a client's role, or disables / enables it. */
export function updateKmipClient(body: BodyOf<typeof api.kmip.update>) {
  return call(api.kmip.update, { body });
}

/** A new certificate for a client (for a new CSR, or the same key without one). */
export function renewKmipClient(body: BodyOf<typeof api.kmip.renew>) {
  return call(api.kmip.renew, { body });
}

export function deleteKmipClient(id: string) {
  return call(api.kmip.delete, { body: { id } });
}
