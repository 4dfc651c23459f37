import type { api, BodyOf, QueryOf } from '@ksp/contracts';
import { lazyCall, lazyUpload } from './lazy-client';

export const configKeys = {
  all: ['config'] as const,
  list: (query: QueryOf<typeof api.config.list>) => ['config', 'list', query] as const,
  site: (canRead: boolean) => ['config', 'site', canRead] as const,
};

export function listConfig(query: QueryOf<typeof api.config.list>) {
  return lazyCall((contract) => contract.config.list, { query });
}

export function addConfig(body: BodyOf<typeof api.config.add>) {
  return lazyCall((contract) => contract.config.add, { body });
}

export function editConfig(body: BodyOf<typeof api.config.edit>) {
  return lazyCall((contract) => contract.config.edit, { body });
}

export function deleteConfig(ids: string[]) {
  return lazyCall((contract) => contract.config.delete, { body: { ids } });
}

export function uploadLogo(file: File) {
  return lazyUpload((contract) => contract.config.upload, file, { filename: file.name });
}

export function fetchPublicConfig() {
  return lazyCall((contract) => contract.config.outlist);
}

/** The entries the shell shows (version, logo, title, MFA), as a key → value map. */
export type SiteConfig = Partial<Record<string, string>>;

/**
 * With `config:read` the shell reads the first page of the full list (page 1, 20 entries,
 * docs/modules.md#configuration); anyone else reads the public list.
 */
export async function fetchSiteConfig(canReadConfig: boolean): Promise<SiteConfig> {
  const entries = canReadConfig
    ? (await lazyCall((contract) => contract.config.list, { query: { page: 1, page_size: 20 } })).data
    : await fetchPublicConfig();
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}
