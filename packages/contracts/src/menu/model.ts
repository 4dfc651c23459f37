import { z } from 'zod';
import type { Permission } from '../permissions.js';

/**
 * The menu the console builds its routes from (docs/console.md#routes). The server filters the
 * menu model by the caller's permissions; `component` is '#' for a group rendered in
 * the layout shell, or a page key the console maps to a lazy-loaded page.
 */
export const MenuMetaSchema = z.object({
  title: z.string(),
  icon: z.string().optional(),
  affix: z.boolean().optional(),
  noCache: z.boolean().optional(),
});
type MenuMeta = z.infer<typeof MenuMetaSchema>;

export interface MenuItem {
  path: string;
  name: string;
  component: string;
  redirect?: string | undefined;
  hidden: boolean;
  meta: MenuMeta;
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
  meta: MenuMeta;
  children?: MenuNode[];
}

/**
 * A page whose key is its path's (`/console/access/user` → `console/access/user/index`;
 * a path that already ends in `/index`, as the spec's SMS routes do, is its own key).
 */
export function page(name: string, path: string, permission: Permission, meta: MenuMeta): MenuNode {
  const key = path.endsWith('/index') ? path.slice(1) : `${path.slice(1)}/index`;
  return { path, name, component: key, permission, meta };
}

/** A group of pages, shown in the layout shell; its path leads to its first visible page. */
export function group(name: string, path: string, meta: MenuMeta, children: MenuNode[]): MenuNode {
  return { path, name, component: '#', meta, children };
}

/** A key list and its hidden detail page: the main console and the KMS sub-console both have them. */
export function keyPages(name: string, path: string, permission: Permission): MenuNode[] {
  return [
    page(name, path, permission, { title: 'key', icon: 'key' }),
    {
      path: `${path}/detail/:id`,
      name: `${name}Detail`,
      component: `${path.slice(1)}/detail`,
      permission,
      hidden: true,
      meta: { title: 'keyDetail', noCache: true },
    },
  ];
}

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
