import { defineMessages } from './define.js';

/** Users. */
export const userMessages = defineMessages({
  en: {
    'user.outOfReach':
      "User '{name}' also belongs to a domain you do not administer; only a system administrator may change this user",
    'user.appRoleTooWide': "The role '{name}' grants permissions the user does not hold: {permissions}",
    'user.deleteSelf': 'You cannot delete your own account',
    'user.badAppSecret': 'Incorrect username or app secret',
    'user.directoryPassword': "User '{name}' signs in through a directory; set the password there",
    'user.notFound': 'User {id} not found',
    'user.nameTaken': "User '{name}' already exists",
    'user.usernameSlash': 'username: must not contain "/" (reserved for directory users)',
  },
  zh: {
    'user.outOfReach': '用户“{name}”还属于您未管理的域，只有系统管理员可以修改该用户',
    'user.appRoleTooWide': '角色“{name}”包含该用户没有的权限：{permissions}',
    'user.deleteSelf': '不能删除自己的账户',
    'user.badAppSecret': '用户名或应用密钥错误',
    'user.directoryPassword': '用户“{name}”通过目录登录，请在目录中设置密码',
    'user.notFound': '用户 {id} 不存在',
    'user.nameTaken': '用户“{name}”已存在',
    'user.usernameSlash': '用户名：不能包含“/”（保留给目录用户）',
  },
});
