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
  crash: {
    title: '页面出错了',
    text: '页面渲染失败，请重新加载后再试。',
  },
};
