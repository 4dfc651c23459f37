import { z } from 'zod';
import { consoleAreas } from './areas.js';
import type { Permission } from './permissions.js';

/**
 * The menu the console builds its routes from (API.md "Menu"). The server filters
 * `menuModel` by the caller's permissions; `component` is '#' for a group rendered in
 * the layout shell, or a page key the console maps to a lazy-loaded page.
 */
export const MenuMetaSchema = z.object({
  title: z.string(),
  icon: z.string().optional(),
  affix: z.boolean().optional(),
  noCache: z.boolean().optional(),
});

export interface MenuItem {
  path: string;
  name: string;
  component: string;
  redirect?: string | undefined;
  hidden: boolean;
  meta: z.infer<typeof MenuMetaSchema>;
  children: MenuItem[];
}

export const MenuItemSchema: z.ZodType<MenuItem> = z.lazy(() =>
  z.object({
    path: z.string(),
    name: z.string(),
    component: z.string(),
    redirect: z.string().optional(),
    hidden: z.boolean(),
    meta: MenuMetaSchema,
    children: z.array(MenuItemSchema),
  }),
);

export interface MenuNode {
  path: string;
  name: string;
  component: string;
  /** Read permission that shows the entry; groups show when any child shows. */
  permission?: Permission;
  hidden?: boolean;
  meta: z.infer<typeof MenuMetaSchema>;
  children?: MenuNode[];
}

/** Page keys the console knows; a key here must have a page in apps/web. */
export const pageKeys = [
  'console/dashboard/index',
  'console/access/user/index',
  'console/access/role/index',
  'console/access/token/index',
  'console/access/ldap/index',
  'console/key/index',
  'console/key/detail',
  'console/setting/domain/index',
  'console/setting/password-policy/index',
  'console/setting/config/index',
  'kms/key/index',
  'kms/key/detail',
] as const;
export type PageKey = (typeof pageKeys)[number];

export const menuModel: MenuNode[] = [
  {
    path: '/console/dashboard',
    name: 'Dashboard',
    component: 'console/dashboard/index',
    permission: 'dashboard:read',
    meta: { title: 'dashboard', icon: 'dashboard', affix: true },
  },
  {
    path: '/console/access',
    name: 'Access',
    component: '#',
    meta: { title: 'access', icon: 'access' },
    children: [
      {
        path: '/console/access/user',
        name: 'AccessUser',
        component: 'console/access/user/index',
        permission: 'user:read',
        meta: { title: 'user', icon: 'user' },
      },
      {
        path: '/console/access/role',
        name: 'AccessRole',
        component: 'console/access/role/index',
        permission: 'role:read',
        meta: { title: 'role', icon: 'role' },
      },
      {
        path: '/console/access/token',
        name: 'AccessToken',
        component: 'console/access/token/index',
        permission: 'token:read',
        meta: { title: 'token', icon: 'token' },
      },
      {
        path: '/console/access/ldap',
        name: 'AccessLdap',
        component: 'console/access/ldap/index',
        permission: 'ldap:read',
        meta: { title: 'ldap', icon: 'lock' },
      },
    ],
  },
  {
    path: '/console/key',
    name: 'Key',
    component: 'console/key/index',
    permission: 'key:read',
    meta: { title: 'key', icon: 'key' },
  },
  {
    path: '/console/key/detail/:id',
    name: 'KeyDetail',
    component: 'console/key/detail',
    permission: 'key:read',
    hidden: true,
    meta: { title: 'keyDetail', noCache: true },
  },
  {
    path: '/console/setting',
    name: 'Setting',
    component: '#',
    meta: { title: 'settings', icon: 'setting' },
    children: [
      {
        path: '/console/setting/domain',
        name: 'SettingDomain',
        component: 'console/setting/domain/index',
        permission: 'domain:read',
        meta: { title: 'domain', icon: 'access' },
      },
      {
        path: '/console/setting/password-policy',
        name: 'SettingPasswordPolicy',
        component: 'console/setting/password-policy/index',
        permission: 'password-policy:read',
        meta: { title: 'passwordPolicy', icon: 'lock' },
      },
      {
        path: '/console/setting/config',
        name: 'SettingConfig',
        component: 'console/setting/config/index',
        permission: 'config:read',
        meta: { title: 'config', icon: 'config' },
      },
    ],
  },
  {
    path: consoleAreas.kms.path,
    name: 'Kms',
    component: '#',
    meta: { title: 'kms', icon: 'key' },
    children: [
      {
        path: `${consoleAreas.kms.path}/key`,
        name: 'KmsKey',
        component: 'kms/key/index',
        permission: consoleAreas.kms.permission,
        meta: { title: 'key', icon: 'key' },
      },
      {
        path: `${consoleAreas.kms.path}/key/detail/:id`,
        name: 'KmsKeyDetail',
        component: 'kms/key/detail',
        permission: consoleAreas.kms.permission,
        hidden: true,
        meta: { title: 'keyDetail', noCache: true },
      },
    ],
  },
];

export function buildMenu(nodes: MenuNode[], held: ReadonlySet<string>): MenuItem[] {
  const out: MenuItem[] = [];
  for (const node of nodes) {
    const children = node.children ? buildMenu(node.children, held) : [];
    const isGroup = node.component === '#';
    if (isGroup ? children.length === 0 : node.permission && !held.has(node.permission)) continue;
    const firstVisible = children.find((c) => !c.hidden);
    out.push({
      path: node.path,
      name: node.name,
      component: node.component,
      redirect: isGroup ? firstVisible?.path : undefined,
      hidden: node.hidden ?? false,
      meta: node.meta,
      children,
    });
  }
  return out;
}
