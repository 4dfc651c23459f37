import type { Catalogue } from '../catalogue';
import type { config as en } from '../en/config';

export const config: Catalogue<typeof en> = {
  columns: {
    key: '键',
    value: '值',
    public: '公开',
    description: '描述',
    updatedAt: '更新时间',
  },
  builtIn: '内置',
  readOnly: '只读',
  addTitle: '新增配置项',
  editTitle: '编辑 {{key}}',
  keyRule: '以字母开头，其后为字母、数字、“_”、“.”或“-”',
  fields: {
    key: '键',
    value: '值',
    public: '公开（登录前可读）',
    description: '描述',
    mfa: '登录时需要 Ukey（MFA）',
  },
  logo: {
    upload: '上传标志',
    badType: '标志必须是 PNG、JPEG、WebP 或 SVG 图片',
    tooLarge: '标志不能超过 {{max}} KB',
    hint: 'PNG、JPEG、WebP 或 SVG，不超过 {{max}} KB',
    uploaded: '标志已上传',
    none: '无标志',
  },
};
