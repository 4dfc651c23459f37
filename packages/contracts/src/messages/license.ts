import { defineMessages } from './define.js';

/** Licences (settings › licenses) and the quota they set. */
export const licenseMessages = defineMessages({
  en: {
    'license.malformed': 'license: not a KSP licence ({reason})',
    'license.badSignature': 'license: the signature does not verify: not issued by the vendor, or altered',
    'license.wrongLockCode': 'license: it is bound to lock code {expected}, this installation is {actual}',
    'license.expired': 'license: it expired on {date}',
    'license.notFound': 'No activated licence {id}',
    'license.duplicate': 'license: licence {id} is activated already',
    'license.quota': 'Licence limit reached: {feature} is limited to {limit}',
    'license.expiredQuota': 'The licence has expired: no new {feature} may be created (limit {limit})',
  },
  zh: {
    'license.malformed': 'license：不是 KSP 许可证（{reason}）',
    'license.badSignature': 'license：签名校验失败：非厂商签发或已被篡改',
    'license.wrongLockCode': 'license：该许可证绑定锁定码 {expected}，本机锁定码为 {actual}',
    'license.expired': 'license：许可证已于 {date} 过期',
    'license.notFound': '已激活的许可证 {id} 不存在',
    'license.duplicate': 'license：许可证 {id} 已激活',
    'license.quota': '已达许可上限：{feature} 最多 {limit}',
    'license.expiredQuota': '许可证已过期：不能再新建 {feature}（上限 {limit}）',
  },
});
