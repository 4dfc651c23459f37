import { defineMessages } from './define.js';

/** LDAP connections. */
export const ldapMessages = defineMessages({
  en: {
    'ldap.notFound': 'LDAP connection {id} not found',
    'ldap.nameTaken': "LDAP connection '{name}' already exists",
  },
  zh: {
    'ldap.notFound': 'LDAP 连接 {id} 不存在',
    'ldap.nameTaken': 'LDAP 连接“{name}”已存在',
  },
});
