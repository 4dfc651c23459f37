import { consoleAreas } from '../areas.js';
import { group, page, type MenuNode } from './model.js';

const { path, permission } = consoleAreas.credential;

/** Page keys of the SMS (credential) sub-console. */
export const credentialPageKeys = [
  'credential/cred/index',
  'credential/server/index',
  'credential/add-server',
  'credential/detail-server',
] as const;

/**
 * The SMS sub-console (docs/modules.md#sms-credentials-and-servers): credentials and servers at
 * the console's paths (docs/console.md: `/credential/cred/index`, `/credential/server/index`); the
 * console sends the bare paths (`/credential/cred`, `/credential/server`) to them.
 */
export const credentialMenu: MenuNode = group(
  'Credential',
  path,
  { title: 'credential', icon: 'credential' },
  [
    page('CredentialCred', `${path}/cred/index`, permission, { title: 'cred', icon: 'cred' }),
    page('CredentialServer', `${path}/server/index`, permission, { title: 'server', icon: 'server' }),
    {
      path: `${path}/add-server`,
      name: 'CredentialAddServer',
      component: `${path.slice(1)}/add-server`,
      permission: 'credential:write',
      hidden: true,
      meta: { title: 'addServer', noCache: true },
    },
    {
      path: `${path}/detail-server/:id`,
      name: 'CredentialDetailServer',
      component: `${path.slice(1)}/detail-server`,
      permission,
      hidden: true,
      meta: { title: 'detailServer', noCache: true },
    },
  ],
);
