import type { Catalogue } from '../catalogue';
import type { account as en } from '../en/account';

export const account: Catalogue<typeof en> = {
  profile: {
    account: '账户',
    name: '用户名',
    email: '邮箱',
    domain: '域',
    roles: '角色',
    lastLogin: '上次登录',
    directory: '目录',
    local: '本地用户',
    never: '从未',
    editEmail: '修改邮箱',
    emailSaved: '邮箱已更新',
  },
  password: {
    title: '修改密码',
    old: '当前密码',
    oldRequired: '请输入当前密码',
    new: '新密码',
    confirm: '确认新密码',
    submit: '修改密码',
    changed: '密码已修改',
    mustChange: '继续操作前必须修改密码。',
    directoryUser: '目录用户请在目录服务中修改密码。',
  },
};
