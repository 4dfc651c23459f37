import { consoleAreas } from '../areas.js';
import type { Permission } from '../permissions.js';
import { page, type MenuNode } from './model.js';

/**
 * The client pages of the TDE (`/cte`) and RDM (`/rdm`) sub-consoles (docs/modules.md#console-routes,
 * docs/modules.md#tde-and-rdm-clients). The policy and profile pages of the same sub-consoles add their
 * nodes to these groups (`cteClientNodes` / `rdmClientNodes` are the clients' share).
 */
export const tdeClientPageKeys = [
  'cte/clients/main',
  'cte/clients/clients-details',
  'cte/clients/clients-groups',
  'cte/clients/clients-groups-details',
  'cte/databases/main',
  'rdm/clients/main',
  'rdm/clients/clients-details',
] as const;

const hiddenPage = (
  path: string,
  name: string,
  component: string,
  permission: Permission,
  title: string,
): MenuNode => ({ path, name, component, permission, hidden: true, meta: { title, noCache: true } });

const cte = { path: consoleAreas.cte.path, permission: 'cte:read' as const };
const rdm = { path: consoleAreas.rdm.path, permission: 'rdm:read' as const };

/** `page()` names the component `<path>/index`; the client pages of docs/modules.md#console-routes are `clients/main`. */
const mainPage = (
  name: string,
  path: string,
  permission: Permission,
  title: string,
  icon: string,
): MenuNode => ({
  ...page(name, path, permission, { title, icon }),
  component: path.slice(1),
});

export const cteClientNodes: MenuNode[] = [
  mainPage('CteClients', `${cte.path}/clients/main`, cte.permission, 'cteClients', 'cteClients'),
  hiddenPage(
    `${cte.path}/clients/clients-details/:id`,
    'CteClientDetail',
    'cte/clients/clients-details',
    cte.permission,
    'cteClientDetail',
  ),
  mainPage(
    'CteClientGroups',
    `${cte.path}/clients/clients-groups`,
    cte.permission,
    'cteClientGroups',
    'cteClientGroups',
  ),
  hiddenPage(
    `${cte.path}/clients/clients-groups-details/:id`,
    'CteClientGroupDetail',
    'cte/clients/clients-groups-details',
    cte.permission,
    'cteClientGroupDetail',
  ),
  // Databases that read their data-at-rest keys from the key endpoint (docs/tde-database.md).
  mainPage('CteDatabases', `${cte.path}/databases/main`, cte.permission, 'cteDatabases', 'cteDatabases'),
];

export const rdmClientNodes: MenuNode[] = [
  mainPage('RdmClients', `${rdm.path}/clients/main`, rdm.permission, 'rdmClients', 'rdmClients'),
  hiddenPage(
    `${rdm.path}/clients/clients-details/:id`,
    'RdmClientDetail',
    'rdm/clients/clients-details',
    rdm.permission,
    'rdmClientDetail',
  ),
];
