import type { PermissionNode } from '@ksp/contracts';

/** A group of the tree role/permission-tree answers: groups → areas → permissions. */
export function groupNode(group: string, areas: Record<string, string[]>): PermissionNode {
  return {
    key: `group:${group}`,
    title: group,
    children: Object.entries(areas).map(([area, permissions]) => ({
      key: `area:${area}`,
      title: area,
      children: permissions.map((permission) => ({ key: permission, title: permission })),
    })),
  };
}

/** Access management with users (read, write) and roles (read), for tests. */
export const accessTree: PermissionNode[] = [
  groupNode('access', { user: ['user:read', 'user:write'], role: ['role:read'] }),
];
