import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdList, IdsBody, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';
import { NamedRef } from './access-common.js';

const RoleName = objectName(64);
const PermissionList = z.array(z.string().max(64)).max(500);

export const RoleRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(['built-in', 'custom']),
  type_description: z.string(),
  permissions: z.array(z.string()),
  users: z.array(NamedRef),
  created_at: z.string(),
});

export interface PermissionNode {
  key: string;
  title: string;
  children?: PermissionNode[];
}
export const PermissionNodeSchema: z.ZodType<PermissionNode> = z.lazy(() =>
  z.object({ key: z.string(), title: z.string(), children: z.array(PermissionNodeSchema).optional() }),
);

export const roleCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/role/list',
    summary: 'Roles with their permissions and users',
    tag: 'role',
    access: 'role:read',
    query: PageQuery.extend({ name: z.string().trim().max(64).optional() }),
    data: pageOf(RoleRow),
  }),
  permissionTree: defineCall({
    method: 'GET',
    path: '/v1/ksp/role/permission-tree',
    summary: 'Every permission, grouped as the menu is',
    tag: 'role',
    access: 'role:read',
    data: z.array(PermissionNodeSchema),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/role/create',
    summary: 'Create a custom role',
    tag: 'role',
    access: 'role:write',
    body: z.object({
      name: RoleName,
      description: z.string().trim().max(256).default(''),
      permissions: PermissionList.min(1),
    }),
    data: RoleRow,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/role/update',
    summary: 'Change a custom role (built-in roles are read-only)',
    tag: 'role',
    access: 'role:write',
    body: z.object({
      id: Id,
      name: RoleName.optional(),
      description: z.string().trim().max(256).optional(),
      permissions: PermissionList.min(1).optional(),
    }),
    data: RoleRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/role/delete',
    summary: 'Delete custom roles that no user holds',
    tag: 'role',
    access: 'role:write',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  assign: defineCall({
    method: 'POST',
    path: '/v1/ksp/role/assign',
    summary: 'Give a role to users',
    tag: 'role',
    access: 'role:write',
    body: z.object({ id: Id, user_ids: IdList }),
    data: RoleRow,
  }),
  unassign: defineCall({
    method: 'POST',
    path: '/v1/ksp/role/unassign',
    summary: 'Take a role from users (the last administrator keeps it)',
    tag: 'role',
    access: 'role:write',
    body: z.object({ id: Id, user_ids: IdList }),
    data: RoleRow,
  }),
};
