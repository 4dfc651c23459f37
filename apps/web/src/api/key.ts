import { api, type BodyOf, type DataOf, type QueryOf } from '@ksp/contracts';
import { call, type CallOptions } from './client';

export type KeyRow = DataOf<typeof api.key.detail>;
/** A key list row: a key row and the certificate or CA it belongs to. */
export type KeyListRow = DataOf<typeof api.key.list>['data'][number];
export type KeyVersion = DataOf<typeof api.key.versions>[number];
export type KeyAuditEntry = DataOf<typeof api.key.audit>['data'][number];
export type KeyExport = DataOf<typeof api.key.export>;
export type KeyListQuery = QueryOf<typeof api.key.list>;
export type CreateKeyBody = BodyOf<typeof api.key.create>;
export type ImportKeyBody = BodyOf<typeof api.key.import>;
export type UpdateKeyBody = BodyOf<typeof api.key.update>;
export type DisableKeyBody = BodyOf<typeof api.key.disable>;

/** Query keys of the key area: invalidating `all` refreshes lists, details, versions and audit. */
export const keyKeys = {
  all: ['keys'] as const,
  list: (query: KeyListQuery) => ['keys', 'list', query] as const,
  detail: (id: string) => ['keys', 'detail', id] as const,
  versions: (id: string) => ['keys', 'versions', id] as const,
  audit: (id: string, page: number, pageSize: number) => ['keys', 'audit', id, page, pageSize] as const,
};

export const listKeys = (query: KeyListQuery) => call(api.key.list, { query });
export const keyDetail = (id: string, options?: CallOptions) =>
  call(api.key.detail, { query: { id } }, options);
export const keyVersions = (id: string) => call(api.key.versions, { query: { id } });
export const keyAudit = (id: string, page: number, pageSize: number) =>
  call(api.key.audit, { query: { id, page, page_size: pageSize } });

export const createKey = (body: CreateKeyBody) => call(api.key.create, { body });
export const importKey = (body: ImportKeyBody) => call(api.key.import, { body });
export const updateKey = (body: UpdateKeyBody) => call(api.key.update, { body });
export const activateKey = (id: string) => call(api.key.activate, { body: { id } });
export const disableKey = (body: DisableKeyBody) => call(api.key.disable, { body });
export const recoverKey = (id: string) => call(api.key.recover, { body: { id } });
export const addKeyVersion = (id: string) => call(api.key.addVersion, { body: { id } });
export const cloneKey = (id: string, newName: string) =>
  call(api.key.clone, { body: { id, new_name: newName } });
export const exportKey = (body: BodyOf<typeof api.key.export>) => call(api.key.export, { body });
export const destroyKey = (id: string) => call(api.key.destroy, { body: { id } });
export const deleteKeys = (ids: string[]) => call(api.key.delete, { body: { ids } });
