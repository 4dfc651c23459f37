import type { Catalogue } from '../catalogue';
import type { errors as en } from '../en/errors';

export const errors: Catalogue<typeof en> = {
  notFound: {
    title: '404',
    text: '您访问的页面不存在。',
  },
  unauthorized: {
    title: '401',
    text: '您无权访问此页面...',
  },
  upcoming: {
    text: '此页面尚未提供：将随其所属模块一同上线。',
    remoteAdd: '远程客户端将在此使用注册令牌向本服务器注册。',
    toLogin: '前往登录页',
  },
  crash: {
    title: '页面出错了',
    text: '页面渲染失败，请重新加载后再试。',
  },
};
