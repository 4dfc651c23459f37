import type { PermissionNode } from '@ksp/contracts';

/** A permission tree as role/permission-tree answers it (groups → areas → permissions), for tests. */
export const accessTree: PermissionNode[] = [
  {
    key: 'group:access',
    title: 'access',
    children: [
      {
        key: 'area:user',
        title: 'user',
        children: [
          { key: 'user:read', title: 'user:read' },
          { key: 'user:write', title: 'user:write' },
        ],
      },
      { key: 'area:role', title: 'role', children: [{ key: 'role:read', title: 'role:read' }] },
    ],
  },
];
