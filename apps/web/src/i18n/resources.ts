import type { Catalogue } from './catalogue';
import { access as enAccess } from './en/access';
import { account as enAccount } from './en/account';
import { auth as enAuth } from './en/auth';
import { common as enCommon } from './en/common';
import { config as enConfig } from './en/config';
import { dashboard as enDashboard } from './en/dashboard';
import { errors as enErrors } from './en/errors';
import { keys as enKeys } from './en/keys';
import { labels as enLabels } from './en/labels';
import { layout as enLayout } from './en/layout';
import { menu as enMenu } from './en/menu';
import { system as enSystem } from './en/system';
import { access as zhAccess } from './zh/access';
import { account as zhAccount } from './zh/account';
import { auth as zhAuth } from './zh/auth';
import { common as zhCommon } from './zh/common';
import { config as zhConfig } from './zh/config';
import { dashboard as zhDashboard } from './zh/dashboard';
import { errors as zhErrors } from './zh/errors';
import { keys as zhKeys } from './zh/keys';
import { labels as zhLabels } from './zh/labels';
import { layout as zhLayout } from './zh/layout';
import { menu as zhMenu } from './zh/menu';
import { system as zhSystem } from './zh/system';

/** English defines every key; Chinese must have the same keys (checked by tsc and by a test). */
export const en = {
  common: enCommon,
  menu: enMenu,
  layout: enLayout,
  auth: enAuth,
  system: enSystem,
  account: enAccount,
  dashboard: enDashboard,
  config: enConfig,
  errors: enErrors,
  access: enAccess,
  keys: enKeys,
  labels: enLabels,
};

export const zh: Catalogue<typeof en> = {
  common: zhCommon,
  menu: zhMenu,
  layout: zhLayout,
  auth: zhAuth,
  system: zhSystem,
  account: zhAccount,
  dashboard: zhDashboard,
  config: zhConfig,
  errors: zhErrors,
  access: zhAccess,
  keys: zhKeys,
  labels: zhLabels,
};

export type Namespace = keyof typeof en;
/** All namespaces, as a tuple so that typed `t` accepts every `namespace:key`. */
export const namespaces = [
  'common',
  'menu',
  'layout',
  'auth',
  'system',
  'account',
  'dashboard',
  'config',
  'errors',
  'access',
  'keys',
  'labels',
] as const satisfies readonly Namespace[];

export const resources = { en, zh };

export type MenuTitleKey = keyof typeof enMenu;

export function isMenuTitleKey(value: string): value is MenuTitleKey {
  return Object.hasOwn(enMenu, value);
}
