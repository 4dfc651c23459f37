import type { Key } from 'react';
import type { PermissionNode } from '@ksp/contracts';
import { i18n } from '../../i18n/i18n';
import { isMenuTitleKey } from '../../i18n/resources';

/** A node of the antd Tree the role editor shows. */
export interface PermissionTreeNode {
  key: string;
  title: string;
  /** The permission code (`area:verb`) of a leaf. */
  code?: string;
  isLeaf?: boolean;
  children?: PermissionTreeNode[];
}

/** Group keys of the permission tree whose menu title differs from the key. */
const groupMenuKeys: Record<string, string> = {
  keys: 'key',
  certificates: 'cert',
};

const verbKeys = {
  read: 'access:permission.verbs.read',
  write: 'access:permission.verbs.write',
  use: 'access:permission.verbs.use',
  export: 'access:permission.verbs.export',
  admin: 'access:permission.verbs.admin',
} as const;

function camel(text: string): string {
  return text.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function menuTitle(name: string): string | null {
  const key = camel(name);
  return isMenuTitleKey(key) ? i18n.t(`menu:${key}`) : null;
}

/** "Access management", "Users", "Read"…: menu titles where the menu has them, else this namespace's. */
export function permissionTitle(node: PermissionNode): string {
  if (node.key.startsWith('group:')) {
    const name = node.key.slice('group:'.length);
    if (name === 'sub-consoles') return i18n.t('access:permission.subConsoles');
    return menuTitle(groupMenuKeys[name] ?? name) ?? node.title;
  }
  if (node.key.startsWith('area:')) return menuTitle(node.key.slice('area:'.length)) ?? node.title;
  if (node.key === 'credential:use') return i18n.t('access:permission.verbs.credentialUse');
  const verb = node.key.split(':')[1] ?? '';
  return Object.hasOwn(verbKeys, verb) ? i18n.t(verbKeys[verb as keyof typeof verbKeys]) : node.title;
}

/** The server's tree (groups → areas → permissions) with translated titles. */
export function toPermissionTree(nodes: readonly PermissionNode[]): PermissionTreeNode[] {
  return nodes.map((node) => {
    const children = node.children ?? [];
    if (children.length === 0)
      return { key: node.key, title: permissionTitle(node), code: node.key, isLeaf: true };
    return { key: node.key, title: permissionTitle(node), children: toPermissionTree(children) };
  });
}

/** Every permission (leaf) of the tree, in order. */
export function permissionLeaves(nodes: readonly PermissionNode[]): string[] {
  return nodes.flatMap((node) => (node.children?.length ? permissionLeaves(node.children) : [node.key]));
}

/**
 * The permissions among the Tree's checked keys: group and area keys dropped, known
 * permissions only, in the tree's order.
 */
export function checkedPermissions(checked: readonly Key[], leaves: readonly string[]): string[] {
  const chosen = new Set(checked.map(String));
  return leaves.filter((leaf) => chosen.has(leaf));
}

/**
 * The role's new permissions after a change in the tree: the offered ones as chosen, plus
 * those the tree does not offer (areas not served yet), which a stored role keeps as they are.
 */
export function keepUnoffered(
  chosen: readonly string[],
  held: readonly string[],
  leaves: readonly string[],
): string[] {
  const offered = new Set(leaves);
  return [...chosen, ...held.filter((permission) => !offered.has(permission))];
}

/** How many of the held permissions the tree offers. */
export function offeredCount(held: readonly string[], leaves: readonly string[]): number {
  const offered = new Set(leaves);
  return held.filter((permission) => offered.has(permission)).length;
}
