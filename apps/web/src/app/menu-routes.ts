import { redirect, type RouteObject } from 'react-router';
import type { MenuItem } from '@ksp/contracts';
import { paths } from '../config/paths';
import { pageFor, type PageModule } from './page-table';
import type { Crumb, RouteHandle } from './route-handle';

export const GROUP_COMPONENT = '#';

function isGroup(item: MenuItem): boolean {
  return item.component === GROUP_COMPONENT;
}

function lazyPage(load: PageModule): RouteObject['lazy'] {
  return async () => ({ Component: (await load()).default });
}

const INDEX = '/index';

function menuPaths(items: readonly MenuItem[]): string[] {
  return items.flatMap((item) => [item.path, ...menuPaths(item.children)]);
}

/** The first visible page of the menu (depth first): where '/' goes. */
export function firstLeafPath(menu: readonly MenuItem[]): string | undefined {
  for (const item of menu) {
    if (item.hidden) continue;
    if (!isGroup(item) && !item.path.includes(':')) return item.path;
    const inner = firstLeafPath(item.children);
    if (inner) return inner;
  }
  return undefined;
}

/** Menu pages marked `affix`: their tabs are open from the start and cannot be closed. */
export function affixViews(menu: readonly MenuItem[]): MenuItem[] {
  return menu.flatMap((item) => [
    ...(!isGroup(item) && item.meta.affix && !item.path.includes(':') ? [item] : []),
    ...affixViews(item.children),
  ]);
}

/**
 * Routes for the server's menu: each page item becomes a lazy route of its page key,
 * each group ('#') a redirect to its first page. Paths are absolute, so they are
 * flattened under the layout route; the tree survives in the breadcrumb trail.
 */
export function menuRoutes(menu: readonly MenuItem[]): RouteObject[] {
  const routes: RouteObject[] = [];
  const known = new Set(menuPaths(menu));
  const walk = (items: readonly MenuItem[], trail: Crumb[], visibleParent: string | undefined) => {
    for (const item of items) {
      const group = isGroup(item);
      const target = group ? (item.redirect ?? firstLeafPath(item.children)) : undefined;
      const crumb: Crumb = { title: item.meta.title, path: group ? target : item.path };
      const itemTrail = [...trail, crumb];
      const menuEntry = item.hidden ? visibleParent : item.path;
      if (group) {
        if (target && target !== item.path) routes.push({ path: item.path, loader: () => redirect(target) });
      } else {
        const handle: RouteHandle = {
          title: item.meta.title,
          name: item.name,
          affix: item.meta.affix ?? false,
          noCache: item.meta.noCache ?? false,
          trail: itemTrail,
          activeMenu: menuEntry,
        };
        routes.push({
          id: `menu:${item.path}`,
          path: item.path,
          lazy: lazyPage(pageFor(item.component)),
          handle,
        });
        // A page at `<path>/index` (the spec's SMS routes) answers its bare path too,
        // as the profile does (`/console/user-setting` → its `index`).
        const bare = item.path.endsWith(INDEX) ? item.path.slice(0, -INDEX.length) : '';
        if (bare && !known.has(bare)) routes.push({ path: bare, loader: () => redirect(item.path) });
      }
      walk(item.children, itemTrail, menuEntry);
    }
  };
  walk(menu, [], undefined);
  return routes;
}

/** The profile routes, which every signed-in user has whatever the menu says. */
export function profileRoutes(): RouteObject[] {
  const handle: RouteHandle = {
    title: 'profile',
    name: 'UserSetting',
    trail: [{ title: 'profile' }],
  };
  return [
    { path: paths.profileRoot, loader: () => redirect(paths.profile) },
    {
      path: paths.profile,
      lazy: lazyPage(() => import('../features/account/profile-page')),
      handle,
    },
  ];
}

export { lazyPage };
