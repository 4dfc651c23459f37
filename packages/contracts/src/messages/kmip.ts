import { defineMessages } from './define.js';

/** KMIP clients and the KMIP listener (docs/kmip.md). */
export const kmipMessages = defineMessages({
  en: {
    'kmip.clientExists': 'A KMIP client named {name} already exists in this domain',
    'kmip.roleNotInDomain': 'Role {id} is not a role of this domain',
    'kmip.nothingToChange': 'Give role_id or enabled',
  },
  zh: {
    'kmip.clientExists': '本域已存在名为 {name} 的 KMIP 客户端',
    'kmip.roleNotInDomain': '角色 {id} 不是本域的角色',
    'kmip.nothingToChange': '请提供 role_id 或 enabled',
  },
});
