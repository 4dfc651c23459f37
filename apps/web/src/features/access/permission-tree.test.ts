import { describe, expect, it } from 'vitest';
import type { PermissionNode } from '@ksp/contracts';
import { i18n } from '../../i18n/i18n';
import {
  checkedPermissions,
  keepUnoffered,
  offeredCount,
  permissionLeaves,
  permissionTitle,
  toPermissionTree,
} from './permission-tree';
import { accessTree, groupNode } from './permission-tree.fixture';

/** The shape role/permission-tree answers (groups → areas → permissions). */
const tree: PermissionNode[] = [
  ...accessTree,
  groupNode('keys', { key: ['key:read', 'key:use', 'key:export'] }),
  groupNode('settings', { 'password-policy': ['password-policy:read'], 'backup-key': ['backup-key:write'] }),
  groupNode('sub-consoles', { credential: ['credential:use'] }),
  groupNode('future', { future: ['future:fly'] }),
];

describe('the permission tree of the role editor', () => {
  it('titles groups and areas with the menu titles, verbs with this namespace, in English', async () => {
    await i18n.changeLanguage('en');
    const data = toPermissionTree(tree);
    expect(data.map((group) => group.title)).toEqual([
      'Access management',
      'Keys',
      'Settings',
      'Sub-consoles',
      'future',
    ]);
    expect(data[0]?.children?.[0]?.title).toBe('Users');
    expect(data[0]?.children?.[0]?.children).toEqual([
      { key: 'user:read', title: 'Read', code: 'user:read', isLeaf: true },
      { key: 'user:write', title: 'Write (create, change, delete)', code: 'user:write', isLeaf: true },
    ]);
    expect(data[1]?.children?.[0]?.children?.map((leaf) => leaf.title)).toEqual([
      'Read',
      'Use (cryptographic operations)',
      'Export',
    ]);
    expect(data[2]?.children?.map((area) => area.title)).toEqual(['Password policy', 'Backup keys']);
    expect(data[3]?.children?.[0]?.title).toBe('SMS');
    // Using a credential is revealing it, not a cryptographic operation.
    expect(data[3]?.children?.[0]?.children?.[0]?.title).toBe('Use (reveal values; applications read them)');
    // Unknown names stay as the server sent them.
    expect(data[4]?.children?.[0]?.children?.[0]?.title).toBe('future:fly');
  });

  it('titles in Chinese when the language is Chinese', async () => {
    await i18n.changeLanguage('zh');
    try {
      expect(permissionTitle({ key: 'area:user', title: 'user' })).toBe('用户');
      expect(permissionTitle({ key: 'user:read', title: 'user:read' })).toBe('读取');
      expect(permissionTitle({ key: 'group:sub-consoles', title: 'sub-consoles' })).toBe('子控制台');
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('lists the permissions (leaves) in order', () => {
    expect(permissionLeaves(tree)).toEqual([
      'user:read',
      'user:write',
      'role:read',
      'key:read',
      'key:use',
      'key:export',
      'password-policy:read',
      'backup-key:write',
      'credential:use',
      'future:fly',
    ]);
  });

  it('keeps only permissions from the checked keys (no group or area keys, nothing unknown), in tree order', () => {
    const leaves = permissionLeaves(tree);
    expect(
      checkedPermissions(
        ['group:access', 'area:user', 'user:write', 'key:read', 'user:read', 'bogus:read'],
        leaves,
      ),
    ).toEqual(['user:read', 'user:write', 'key:read']);
    expect(checkedPermissions([], leaves)).toEqual([]);
  });
});

describe('permissions the tree does not offer', () => {
  const leaves = ['user:read', 'user:write', 'role:read'];
  it('are kept through a change, and not counted', () => {
    expect(keepUnoffered(['role:read'], ['user:read', 'cert:read'], leaves)).toEqual([
      'role:read',
      'cert:read',
    ]);
    expect(keepUnoffered([], ['log:read'], leaves)).toEqual(['log:read']);
    expect(offeredCount(['user:read', 'cert:read', 'log:read'], leaves)).toBe(1);
  });
});
