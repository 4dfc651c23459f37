import { consoleMenu, consolePageKeys } from './console.js';
import { credentialMenu, credentialPageKeys } from './credential.js';
import { kmsMenu, kmsPageKeys } from './kms.js';
import { kadpMenu, kadpPageKeys } from './kadp.js';
import type { MenuNode } from './model.js';

export { buildMenu, MenuItemSchema, MenuMetaSchema, type MenuItem, type MenuNode } from './model.js';

/** Page keys the console knows; a key here must have a page in apps/web. */
export const pageKeys = [...consolePageKeys, ...kmsPageKeys, ...credentialPageKeys, ...kadpPageKeys] as const;
export type PageKey = (typeof pageKeys)[number];

/** The whole menu, area by area: a new area adds its menu here. */
export const menuModel: MenuNode[] = [...consoleMenu, kmsMenu, credentialMenu, kadpMenu];
