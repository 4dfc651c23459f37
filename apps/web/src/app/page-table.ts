import type { ComponentType } from 'react';
import type { PageKey } from '@ksp/contracts';

export type PageModule = () => Promise<{ default: ComponentType }>;

/**
 * The one table from the server's page keys (menu `component`) to lazy pages.
 * Typed by the contract's `pageKeys`: a key without a page fails the type check.
 */
export const pageTable: Record<PageKey, PageModule> = {
  'console/dashboard/index': () => import('./dashboard-with-alarms'),
  'console/product/index': () => import('../features/product/product-page'),
  'console/access/user/index': () => import('../features/access/user-page'),
  'console/access/role/index': () => import('../features/access/role-page'),
  'console/access/token/index': () => import('../features/access/token-page'),
  'console/access/ldap/index': () => import('../features/access/ldap-page'),
  'console/key/index': () => import('../features/key/key-list-page'),
  'console/key/detail': () => import('../features/key/key-detail-page'),
  'console/kmip/index': () => import('../features/kmip/kmip-client-page'),
  'console/cert/external/index': () => import('../features/cert/external-page'),
  'console/cert/local/index': () => import('../features/cert/local-page'),
  'console/log/index': () => import('./log-tabs-page'),
  'console/setting/domain/index': () => import('../features/settings/domain-page'),
  'console/setting/password-policy/index': () => import('../features/settings/password-policy-page'),
  'console/setting/config/index': () => import('../features/config/config-page'),
  'console/setting/syslog/index': () => import('../features/settings/syslog-page'),
  'console/setting/quantum/index': () => import('../features/settings/quantum-page'),
  'console/setting/license/index': () => import('../features/settings/license-page'),
  'console/setting/hsm/index': () => import('../features/settings/hsm-page'),
  'console/setting/scheduler/index': () => import('../features/settings/scheduler-page'),
  'console/setting/backup-key/index': () => import('../features/settings/backup-key-page'),
  'console/setting/backup/index': () => import('../features/settings/backup-page'),
  'kms/key/index': () => import('../features/key/key-list-page'),
  'kms/key/detail': () => import('../features/key/key-detail-page'),
  'credential/cred/index': () => import('../features/credential/credential-page'),
  'credential/server/index': () => import('../features/ssh-server/server-list-page'),
  'credential/add-server': () => import('../features/ssh-server/add-server-page'),
  'credential/detail-server': () => import('../features/ssh-server/server-detail-page'),
  'kadp/clients/index': () => import('../features/kadp/client-list-page'),
  'kadp/clients/clients-details': () => import('../features/kadp/client-detail-page'),
  'cte/policies/policies': () => import('../features/tde-policy/policy-list-page'),
  'cte/policies/create-policies': () => import('../features/tde-policy/policy-editor-page'),
  'cte/policies/policies-details': () => import('../features/tde-policy/policy-editor-page'),
  'cte/policies/policy-elements': () => import('../features/tde-policy/element-list-page'),
  'cte/policies/create-policies-elements': () => import('../features/tde-policy/element-editor-page'),
  'cte/policies/policy-elements-details': () => import('../features/tde-policy/element-editor-page'),
  'cte/setting/profiles': () => import('../features/tde-policy/profile-list-page'),
  'cte/setting/profiles-details': () => import('../features/tde-policy/profile-detail-page'),
  'rdm/policies/policies': () => import('../features/tde-policy/policy-list-page'),
  'rdm/policies/create-policies': () => import('../features/tde-policy/policy-editor-page'),
  'rdm/policies/policies-details': () => import('../features/tde-policy/policy-editor-page'),
  'rdm/policies/policy-elements': () => import('../features/tde-policy/element-list-page'),
  'rdm/policies/create-policies-elements': () => import('../features/tde-policy/element-editor-page'),
  'rdm/policies/policy-elements-details': () => import('../features/tde-policy/element-editor-page'),
  'cte/clients/main': () =>
    import('../features/tde-clients/client-list-page').then((m) => ({ default: m.CteClientListPage })),
  'cte/clients/clients-details': () =>
    import('../features/tde-clients/client-detail-page').then((m) => ({ default: m.CteClientDetailPage })),
  'cte/clients/clients-groups': () => import('../features/tde-clients/group-list-page'),
  'cte/clients/clients-groups-details': () => import('../features/tde-clients/group-detail-page'),
  'cte/databases/main': () => import('../features/tde-databases/database-client-page'),
  'rdm/clients/main': () =>
    import('../features/tde-clients/client-list-page').then((m) => ({ default: m.RdmClientListPage })),
  'rdm/clients/clients-details': () =>
    import('../features/tde-clients/client-detail-page').then((m) => ({ default: m.RdmClientDetailPage })),
};

export const notFoundPage: PageModule = () => import('../features/errors/not-found-page');

/** The page of a key; an unknown key renders the 404 page. */
export function pageFor(key: string): PageModule {
  return Object.hasOwn(pageTable, key) ? pageTable[key as PageKey] : notFoundPage;
}
