import { defineMessages } from './define.js';

/** Roles. */
export const roleMessages = defineMessages({
  en: {
    'role.outOfReach':
      "Role '{name}' is held by users of a domain you do not administer; only a system administrator may change it",
    'role.notFound': 'Role {id} not found',
    'role.nameTaken': "Role '{name}' already exists",
    'role.builtIn': "Built-in role '{name}' cannot be changed or deleted",
    'role.inUse': "Role '{name}' is held by {count} user(s); take it from them first",
    'role.unknownPermission': "permissions: '{permission}' is not a permission",
    'role.lastAdministrator': 'At least one user must keep the Administrator role',
  },
  zh: {
    'role.outOfReach': '角色“{name}”被您未管理的域中的用户持有，只有系统管理员可以修改',
    'role.notFound': '角色 {id} 不存在',
    'role.nameTaken': '角色“{name}”已存在',
    'role.builtIn': '内置角色“{name}”不能修改或删除',
    'role.inUse': '角色“{name}”仍被 {count} 个用户使用，请先解除',
    'role.unknownPermission': '权限：“{permission}”不是有效的权限',
    'role.lastAdministrator': '至少需要保留一个拥有管理员角色的用户',
  },
});
