import { useQuery } from '@tanstack/react-query';
import { useT } from '../i18n/i18n';
import { common as enCommon } from '../i18n/en/common';
import { common as zhCommon } from '../i18n/zh/common';
import { configKeys, fetchSiteConfig, type SiteConfig } from '../api/config';
import { useToken } from '../api/session';
import { useHasPermission } from './permissions';

/** The stock titles (either language): shown translated unless an admin changed the title. */
const stockTitles = new Set([enCommon.app.title, zhCommon.app.title]);

/**
 * version, logo, title and MFA: from the full config list when the user may list the
 * configuration, else from the public list (which also works before login).
 */
export function useSiteConfig() {
  const token = useToken();
  // config:read is the access of api.config.list (docs/modules.md#configuration), named here so that the shell does
  // not load the contract's schemas before the login form.
  const canRead = useHasPermission('config:read') && Boolean(token);
  return useQuery<SiteConfig>({
    queryKey: configKeys.site(canRead),
    queryFn: () => fetchSiteConfig(canRead),
    staleTime: 5 * 60_000,
    retry: false,
  });
}

/** The product title: the configured one if customised, else "Key Management System" translated. */
export function useProductTitle(): string {
  const t = useT();
  const { data } = useSiteConfig();
  const configured = data?.title?.trim();
  return configured && !stockTitles.has(configured) ? configured : t('common:app.title');
}
