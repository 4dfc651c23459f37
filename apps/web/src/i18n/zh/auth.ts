import type { Catalogue } from '../catalogue';
import type { auth as en } from '../en/auth';

export const auth: Catalogue<typeof en> = {
  login: {
    title: '登录',
    username: '用户名',
    password: '密码',
    submit: '登录',
    usernameRequired: '请输入用户名',
    directoryHint: '目录用户请以“连接名/用户名”登录',
    mfaOn: '密码验证后需要使用 Ukey',
    badCredentials: '用户名或密码错误',
  },
  ukey: {
    prompt: '请使用 Ukey 登录',
    back: '返回密码登录',
  },
  authRedirect: {
    loading: '正在加载账户信息…',
    success: '认证成功',
    successText: '您已登录，控制台即将打开。',
    enter: '进入控制台',
    failed: '登录失败',
    toLogin: '前往登录',
  },
  iframeInit: {
    waiting: '正在等待宿主页面为您登录…',
    standalone: '此页面用于控制台嵌入其他页面时。',
    toLogin: '前往登录',
  },
};
