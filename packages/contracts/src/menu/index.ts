import { consoleMenu, consolePageKeys } from './console.js';
import { credentialMenu, credentialPageKeys } from './credential.js';
import { kmsMenu, kmsPageKeys } from './kms.js';
import { kadpMenu, kadpPageKeys } from './kadp.js';
import { ctePolicyNodes, ctePolicyPageKeys, rdmPolicyNodes, rdmPolicyPageKeys } from './tde-policy.js';
import { cteClientNodes, rdmClientNodes, tdeClientPageKeys } from './tde-clients.js';
import { consoleAreas } from '../areas.js';
import { group, type MenuNode } from './model.js';

export { buildMenu, MenuItemSchema, MenuMetaSchema, type MenuItem, type MenuNode } from './model.js';

/** Page keys the console knows; a key here must have a page in apps/web. */
export const pageKeys = [
  ...consolePageKeys,
  ...kmsPageKeys,
  ...credentialPageKeys,
  ...kadpPageKeys,
  ...tdeClientPageKeys,
  ...ctePolicyPageKeys,
  ...rdmPolicyPageKeys,
] as const;
export type PageKey = (typeof pageKeys)[number];

/** The TDE sub-console: clients and groups, then policies, policy elements and profiles. */
const cteMenu = group('Cte', consoleAreas.cte.path, { title: 'cte', icon: 'cte' }, [
  ...cteClientNodes,
  ...ctePolicyNodes,
]);
/** The RDM sub-console: clients, then RDM policies and the shared policy elements. */
const rdmMenu = group('Rdm', consoleAreas.rdm.path, { title: 'rdm', icon: 'rdm' }, [
  ...rdmClientNodes,
  ...rdmPolicyNodes,
]);

/** The whole menu, area by area: a new area adds its menu here. */
export const menuModel: MenuNode[] = [...consoleMenu, cteMenu, rdmMenu, kmsMenu, credentialMenu, kadpMenu];
