import { group, keyPages, page, type MenuNode } from './model.js';

/** Page keys of the main console; each must have a page in apps/web. */
export const consolePageKeys = [
  'console/dashboard/index',
  'console/product/index',
  'console/access/user/index',
  'console/access/role/index',
  'console/access/token/index',
  'console/access/ldap/index',
  'console/key/index',
  'console/key/detail',
  'console/kmip/index',
  'console/cert/external/index',
  'console/cert/local/index',
  'console/log/index',
  'console/setting/domain/index',
  'console/setting/password-policy/index',
  'console/setting/config/index',
  'console/setting/syslog/index',
  'console/setting/quantum/index',
  'console/setting/license/index',
  'console/setting/hsm/index',
  'console/setting/scheduler/index',
  'console/setting/backup-key/index',
  'console/setting/backup/index',
] as const;

/** The main console's menu (docs/modules.md#console-routes). */
export const consoleMenu: MenuNode[] = [
  page('Dashboard', '/console/dashboard', 'dashboard:read', {
    title: 'dashboard',
    icon: 'dashboard',
    affix: true,
  }),
  page('Product', '/console/product', 'product:read', { title: 'product', icon: 'product' }),
  group('Access', '/console/access', { title: 'access', icon: 'access' }, [
    page('AccessUser', '/console/access/user', 'user:read', { title: 'user', icon: 'user' }),
    page('AccessRole', '/console/access/role', 'role:read', { title: 'role', icon: 'role' }),
    page('AccessToken', '/console/access/token', 'token:read', { title: 'token', icon: 'token' }),
    page('AccessLdap', '/console/access/ldap', 'ldap:read', { title: 'ldap', icon: 'ldap' }),
  ]),
  ...keyPages('Key', '/console/key', 'key:read'),
  page('Kmip', '/console/kmip', 'kmip:read', { title: 'kmip', icon: 'kmip' }),
  group('Cert', '/console/cert', { title: 'cert', icon: 'cert' }, [
    page('CertExternal', '/console/cert/external', 'cert:read', {
      title: 'certExternal',
      icon: 'certExternal',
    }),
    page('CertLocal', '/console/cert/local', 'cert:read', { title: 'certLocal', icon: 'certLocal' }),
  ]),
  page('Log', '/console/log', 'log:read', { title: 'log', icon: 'log' }),
  group('Setting', '/console/setting', { title: 'settings', icon: 'setting' }, [
    page('SettingDomain', '/console/setting/domain', 'domain:read', { title: 'domain', icon: 'domain' }),
    page('SettingLicense', '/console/setting/license', 'license:read', { title: 'license', icon: 'license' }),
    page('SettingPasswordPolicy', '/console/setting/password-policy', 'password-policy:read', {
      title: 'passwordPolicy',
      icon: 'lock',
    }),
    page('SettingHsm', '/console/setting/hsm', 'hsm:read', { title: 'hsm', icon: 'hsm' }),
    page('SettingBackupKey', '/console/setting/backup-key', 'backup-key:read', {
      title: 'backupKey',
      icon: 'backupKey',
    }),
    page('SettingBackup', '/console/setting/backup', 'backup:read', { title: 'backup', icon: 'backup' }),
    page('SettingConfig', '/console/setting/config', 'config:read', { title: 'config', icon: 'config' }),
    page('SettingSyslog', '/console/setting/syslog', 'syslog:read', { title: 'syslog', icon: 'syslog' }),
    page('SettingScheduler', '/console/setting/scheduler', 'scheduler:read', {
      title: 'scheduler',
      icon: 'scheduler',
    }),
    page('SettingQuantum', '/console/setting/quantum', 'quantum:read', { title: 'quantum', icon: 'quantum' }),
  ]),
];
