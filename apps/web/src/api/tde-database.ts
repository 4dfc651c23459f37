import { api, type BodyOf, type DataOf, type QueryOf } from '@ksp/contracts';
import { call, type CallOptions } from './client';

export type DbClientIssued = DataOf<typeof api.tdeDatabase.create>;

/** Query keys of the TDE database clients page and the key detail's database reads (docs/tde-database.md). */
export const tdeDatabaseKeys = {
  all: ['tde-database'] as const,
  endpoint: ['tde-database', 'endpoint'] as const,
  list: ['tde-database', 'list'] as const,
  detail: (id: string) => ['tde-database', 'detail', id] as const,
  keyReaders: (keyId: string) => ['tde-database', 'key-readers', keyId] as const,
};

/** The key endpoint databases read from: its path, mount, whether it is served over TLS, its certificate. */
export const fetchDbKeyEndpoint = () => call(api.tdeDatabase.endpoint);

export const listDbClients = (query: QueryOf<typeof api.tdeDatabase.list>) =>
  call(api.tdeDatabase.list, { query });

export const fetchDbClient = (id: string) => call(api.tdeDatabase.detail, { query: { id } });

/** Creates a client: answers it and its access token, once. */
export const createDbClient = (body: BodyOf<typeof api.tdeDatabase.create>) =>
  call(api.tdeDatabase.create, { body });

/** Changes the description or IP whitelist, or disables / enables the client. */
export const updateDbClient = (body: BodyOf<typeof api.tdeDatabase.update>) =>
  call(api.tdeDatabase.update, { body });

/** A new token (answered once); the old one stops working at once. */
export const regenerateDbToken = (id: string) => call(api.tdeDatabase.regenerateToken, { body: { id } });

export const revokeDbToken = (id: string) => call(api.tdeDatabase.revokeToken, { body: { id } });

/** The keys a client may be granted: the domain's AES-256 keys in use, by name (`name`: part of it). */
export const listDbKeyOptions = (name?: string) =>
  call(api.tdeDatabase.keyOptions, { query: name ? { name } : {} });

export type DbKeyOption = DataOf<typeof api.tdeDatabase.keyOptions>[number];

export const grantDbKey = (body: BodyOf<typeof api.tdeDatabase.grant>) =>
  call(api.tdeDatabase.grant, { body });

export const ungrantDbKey = (id: string, dbKeyId: number) =>
  call(api.tdeDatabase.ungrant, { body: { id, db_key_id: dbKeyId } });

export const deleteDbClient = (id: string) => call(api.tdeDatabase.delete, { body: { id } });

/** The database clients that may read a key, with their reads. */
export const fetchKeyReaders = (keyId: string, options?: CallOptions) =>
  call(api.tdeDatabase.keyReaders, { query: { key_id: keyId } }, options);
