import { describe, expect, expectTypeOf, it } from 'vitest';
import { allCalls } from './index.js';
import { buildMenu, menuModel, pageKeys, type MenuItem, type MenuNode } from './menu/index.js';
import { areaMessages, formatMessage, messageKeys, pickLanguage, type MessageKey } from './messages/index.js';
import { builtInRoles, isPermission, permissions } from './permissions.js';

const menuPermissions = (nodes: readonly MenuNode[]): string[] =>
  nodes.flatMap((node) => [
    ...(node.permission ? [node.permission] : []),
    ...menuPermissions(node.children ?? []),
  ]);

describe('language choice', () => {
  it('prefers the language cookie, then Accept-Language by weight, English by default', () => {
    expect(pickLanguage(undefined)).toBe('en');
    expect(pickLanguage('fr-FR,zh-CN;q=0.8,en;q=0.5')).toBe('zh');
    expect(pickLanguage('en-US,zh;q=0.9')).toBe('en');
    expect(pickLanguage('zh-CN', 'en')).toBe('en');
    expect(pickLanguage('de')).toBe('en');
  });
  it('fills message templates', () => {
    expect(formatMessage('auth.forbidden', 'zh', { permission: 'key:write' })).toBe(
      '权限不足：需要 key:write 权限',
    );
  });
});

describe('message catalogue', () => {
  it('is split by area: each key in one area only, in both languages', () => {
    const all = areaMessages.flatMap((messages) => Object.keys(messages.en));
    expect(new Set(all).size).toBe(all.length);
    expect(messageKeys).toHaveLength(all.length);
    for (const messages of areaMessages) {
      expect(Object.keys(messages.zh).sort()).toEqual(Object.keys(messages.en).sort());
    }
    expectTypeOf<'key.notFound' | 'auth.forbidden'>().toExtend<MessageKey>();
    expectTypeOf<'key.nope'>().not.toExtend<MessageKey>();
  });
});

describe('menu', () => {
  it('shows only entries whose read permission is held, and drops empty groups', () => {
    expect(buildMenu(menuModel, new Set(['dashboard:read'])).map((m) => m.path)).toEqual([
      '/console/dashboard',
    ]);
    const full = buildMenu(menuModel, new Set(permissions));
    expect(full.find((m) => m.path === '/console/setting')?.redirect).toBe('/console/setting/domain');
    expect(full.find((m) => m.path === '/console/key/detail/:id')?.hidden).toBe(true);
    for (const leaf of full.flatMap((m) => (m.children.length ? m.children : [m]))) {
      expect(pageKeys).toContain(leaf.component);
    }
  });
  it('serves every sub-console route at the path docs/console.md#routes names', () => {
    const paths = (items: readonly MenuItem[]): string[] =>
      items.flatMap((item) => [item.path, ...paths(item.children)]);
    const served = paths(buildMenu(menuModel, new Set(permissions)));
    const policy = (area: string) =>
      ['policies', 'create-policies', 'policy-elements', 'create-policies-elements'].map(
        (page) => `/${area}/policies/${page}`,
      );
    const specRoutes = [
      '/cte/clients/main',
      '/cte/clients/clients-details/:id',
      '/cte/clients/clients-groups',
      '/cte/clients/clients-groups-details/:id',
      ...policy('cte'),
      '/cte/policies/policies-details/:id',
      '/cte/policies/policy-elements-details/:id',
      '/cte/setting/profiles',
      '/cte/setting/profiles-details/:name',
      '/rdm/clients/main',
      '/rdm/clients/clients-details/:id',
      ...policy('rdm'),
      '/rdm/policies/policies-details/:id',
      '/rdm/policies/policy-elements-details/:id',
      '/kadp/clients',
      '/kadp/clients/clients-details/:id',
      '/credential/cred/index',
      '/credential/server/index',
      '/credential/add-server',
      '/credential/detail-server/:id',
      '/kms/key',
      '/kms/key/detail/:id',
    ];
    expect(specRoutes.filter((route) => !served.includes(route))).toEqual([]);
    expect(buildMenu(menuModel, new Set(permissions)).find((m) => m.path === '/credential')?.redirect).toBe(
      '/credential/cred/index',
    );
  });
  it('asks only for real permissions, all of which the Administrator holds', () => {
    const admin = new Set<string>(builtInRoles.Administrator.permissions);
    const asked = [...allCalls.map((call) => call.access), ...menuPermissions(menuModel)].filter(
      (access) => access !== 'public' && access !== 'session',
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const permission of new Set(asked)) {
      expect(isPermission(permission), permission).toBe(true);
      expect(admin.has(permission), permission).toBe(true);
    }
  });
});
