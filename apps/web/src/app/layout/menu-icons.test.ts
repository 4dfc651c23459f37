import { describe, expect, it } from 'vitest';
import { isValidElement } from 'react';
import { menuModel, type MenuNode } from '@ksp/contracts';
import { menuIcon } from './menu-icons';

const visible = (nodes: readonly MenuNode[]): MenuNode[] =>
  nodes.filter((node) => !node.hidden).flatMap((node) => [node, ...visible(node.children ?? [])]);

/** The icon component an entry shows (Keys and KMS must differ). */
const iconType = (node: MenuNode): unknown => {
  const icon = menuIcon(node.meta.icon);
  return isValidElement(icon) ? icon.type : undefined;
};

describe('side menu icons', () => {
  it('exist for every visible entry of the menu', () => {
    for (const node of visible(menuModel)) expect(iconType(node), node.path).toBeDefined();
  });

  it('tell the top-level entries apart, Keys and KMS included', () => {
    const top = menuModel.filter((node) => !node.hidden);
    expect(new Set(top.map(iconType)).size).toBe(top.length);
    const keys = top.find((node) => node.path === '/console/key')!;
    const kms = top.find((node) => node.path === '/kms')!;
    expect(iconType(keys)).not.toBe(iconType(kms));
  });

  it('tell the entries of each group apart', () => {
    for (const group of menuModel.filter((node) => node.children)) {
      const children = visible(group.children ?? []);
      expect(new Set(children.map(iconType)).size, group.path).toBe(children.length);
    }
  });
});
