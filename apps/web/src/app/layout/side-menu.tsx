import { useMemo } from 'react';
import { Menu, type MenuProps } from 'antd';
import { useMatches, useNavigate } from 'react-router';
import type { MenuItem } from '@ksp/contracts';
import { currentLanguage, useT } from '../../i18n/i18n';
import { leafHandle, translateTitle } from '../route-handle';
import { menuIcon } from './menu-icons';

type ItemType = Required<MenuProps>['items'][number];

/** Visible entries only; groups ('#', or items with visible children) become submenus. */
export function menuItems(items: readonly MenuItem[], language: string): ItemType[] {
  return items
    .filter((item) => !item.hidden)
    .map((item) => {
      const children = menuItems(item.children, language);
      const label = translateTitle(item.meta.title, language);
      const icon = menuIcon(item.meta.icon);
      if (item.component === '#' || children.length > 0) {
        return { key: item.path, icon, label, children };
      }
      return { key: item.path, icon, label };
    });
}

/** Paths of the groups above `target`, to open their submenus. */
export function ancestorKeys(items: readonly MenuItem[], target: string, trail: string[] = []): string[] {
  for (const item of items) {
    if (item.path === target) return trail;
    const found = ancestorKeys(item.children, target, [...trail, item.path]);
    if (found.length > 0 || item.children.some((child) => child.path === target)) return found;
  }
  return [];
}

export function SideMenu({
  menu,
  collapsed,
  onNavigate,
}: {
  menu: readonly MenuItem[];
  collapsed: boolean;
  onNavigate?: () => void;
}) {
  useT();
  const language = currentLanguage();
  const navigate = useNavigate();
  const active = leafHandle(useMatches())?.activeMenu;
  const items = useMemo(() => menuItems(menu, language), [menu, language]);
  const open = useMemo(() => (active ? ancestorKeys(menu, active) : []), [menu, active]);

  return (
    <Menu
      data-testid="side-menu"
      mode="inline"
      theme="dark"
      items={items}
      selectedKeys={active ? [active] : []}
      defaultOpenKeys={collapsed ? [] : open}
      key={collapsed ? 'collapsed' : open.join('|')}
      onClick={({ key }) => {
        void navigate(key);
        onNavigate?.();
      }}
      style={{ borderInlineEnd: 0 }}
    />
  );
}
