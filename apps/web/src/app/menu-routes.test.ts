import { describe, expect, it } from 'vitest';
import type { MenuItem } from '@ksp/contracts';
import { testMenu } from '../test-fixtures';
import { affixViews, firstLeafPath, menuRoutes } from './menu-routes';
import { notFoundPage, pageFor, pageTable } from './page-table';
import type { RouteHandle } from './route-handle';

const withHidden: MenuItem[] = [
  {
    path: '/console/key',
    name: 'Key',
    component: 'console/key/index',
    hidden: false,
    meta: { title: 'key', icon: 'key' },
    children: [
      {
        path: '/console/key/detail/:id',
        name: 'KeyDetail',
        component: 'console/key/detail',
        hidden: true,
        meta: { title: 'key', noCache: true },
        children: [],
      },
    ],
  },
];

describe('menu routes', () => {
  it('sends / to the first visible page', () => {
    expect(firstLeafPath(testMenu)).toBe('/console/dashboard');
    expect(firstLeafPath([{ ...testMenu[0]!, hidden: true }, testMenu[1]!])).toBe('/console/setting/config');
    expect(firstLeafPath([])).toBeUndefined();
  });

  it('makes a route per page and a redirect per group', () => {
    const routes = menuRoutes(testMenu);
    expect(routes.map((route) => route.path)).toEqual([
      '/console/dashboard',
      '/console/setting',
      '/console/setting/config',
    ]);
    const group = routes[1];
    expect(group?.loader).toBeTypeOf('function');
    const config = routes[2];
    expect(config?.handle).toEqual({
      title: 'config',
      name: 'SettingConfig',
      affix: false,
      noCache: false,
      trail: [
        { title: 'settings', path: '/console/setting/config' },
        { title: 'config', path: '/console/setting/config' },
      ],
      activeMenu: '/console/setting/config',
    } satisfies RouteHandle);
  });

  it('lights the visible parent for a hidden page', () => {
    const routes = menuRoutes(withHidden);
    expect((routes[1]?.handle as RouteHandle).activeMenu).toBe('/console/key');
    expect((routes[1]?.handle as RouteHandle).noCache).toBe(true);
  });

  it('lists affixed pages', () => {
    expect(affixViews(testMenu).map((item) => item.path)).toEqual(['/console/dashboard']);
  });

  it('maps every contract page key, and an unknown key to the 404 page', () => {
    expect(pageFor('console/dashboard/index')).toBe(pageTable['console/dashboard/index']);
    expect(pageFor('console/nothing/index')).toBe(notFoundPage);
    expect(pageFor('toString')).toBe(notFoundPage);
  });
});
