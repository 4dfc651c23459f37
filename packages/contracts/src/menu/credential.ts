import { consoleAreas } from '../areas.js';
import { group, page, type MenuNode } from './model.js';

const { path, permission } = consoleAreas.credential;

/** Page keys of the SMS (credential) sub-console. */
export const credentialPageKeys = ['credential/cred/index'] as const;

/** The SMS sub-console (MODULES.md §7): credentials; servers and the SSH terminal come later. */
export const credentialMenu: MenuNode = group(
  'Credential',
  path,
  { title: 'credential', icon: 'credential' },
  [page('CredentialCred', `${path}/cred`, permission, { title: 'cred', icon: 'cred' })],
);
