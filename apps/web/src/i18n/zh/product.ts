import type { Catalogue } from '../catalogue';
import type { product as en } from '../en/product';

export const product: Catalogue<typeof en> = {
  title: '产品',
  intro: '每个产品以仅限于该产品的令牌打开其自己的控制台。',
  names: {
    tde: '透明加密',
    kadp: 'KADP',
    kms: 'KMS',
    rdm: '防勒索',
    sms: 'SMS',
  },
  figures: {
    clients: '客户端',
    healthy: '健康',
    warning: '警告',
    error: '错误',
    revoked: '已吊销',
    keys: '密钥',
    in_use: '使用中',
    inactive: '未激活',
    disabled: '已禁用',
    credentials: '凭据',
    servers: '服务器',
  },
  license: {
    licensed: '已授权',
    community: '未授权（社区版限额）',
    expired: '许可证已过期',
    quota: '配额',
    used: '已用 {{used}} / {{total}}',
    total: '允许 {{total}}',
    until: '有效期至 {{date}}',
  },
  noAccess: '您没有此产品的权限。',
  openTab: '在新标签页打开',
  openEmbedded: '在此处打开',
  popupBlocked: '浏览器阻止了新标签页。请允许此站点的弹出窗口，或在此处打开。',
  embeddedTitle: '{{name}}（嵌入）',
  close: '关闭',
  refresh: '刷新',
};
