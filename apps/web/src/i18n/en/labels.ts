import { builtInConfig, ROOT_DOMAIN_DESCRIPTION } from '@ksp/contracts';

/**
 * Labels the server makes, shown translated: descriptions of built-in configuration
 * entries (by key), built-in role names, the root domain's description and audit actions
 * (by action code). A label someone typed is shown as typed (i18n/server-labels.ts).
 */
export const labels = {
  // English is the server's own text.
  config: {
    version: builtInConfig.version.description,
    title: builtInConfig.title.description,
    logo: builtInConfig.logo.description,
    MFA: builtInConfig.MFA.description,
    UKEY_BRIDGE: builtInConfig.UKEY_BRIDGE.description,
  },
  rootDomain: ROOT_DOMAIN_DESCRIPTION,
  role: {
    Administrator: 'Administrator',
    Operator: 'Operator',
    Auditor: 'Auditor',
  },
  audit: {
    access: { denied: 'Access denied' },
    system: {
      init: { component: 'Key component generated', finish: 'Initialization finished' },
      activate: 'System activated',
    },
    user: {
      login: 'Sign-in',
      logout: 'Sign-out',
      verify: 'UKEY sign-in',
      'app-login': 'Application sign-in',
      'switch-domain': 'Domain switch',
      'update-my-password': 'Own password change',
      'update-email': 'Email change',
      'update-secret': 'App secret renewal',
      'kadp-token': 'KADP token issued',
      'sms-token': 'SMS token issued',
      'send-sdk-user': 'SDK user sent',
      bindukey: 'UKEY bound',
      unbindukey: 'UKEY unbound',
      create: 'User created',
      update: 'User changed',
      delete: 'User deleted',
      'update-password': 'Password reset',
      'update-password-next-login': 'Password change at next sign-in set',
      unlock: 'User unlocked',
      'update-ip': 'IP whitelist change',
      domain: { 'add-user': 'Users added to a domain', 'delete-user': 'Users removed from a domain' },
    },
    token: {
      refresh: 'Session refresh',
      create: 'Registration token created',
      update: 'Registration token changed',
      renew: 'Registration token renewed',
      delete: 'Registration token deleted',
    },
    role: {
      create: 'Role created',
      update: 'Role changed',
      delete: 'Role deleted',
      assign: 'Role given',
      unassign: 'Role taken',
    },
    domain: { create: 'Domain created', update: 'Domain changed', delete: 'Domain deleted' },
    ldap: {
      create: 'LDAP connection created',
      update: 'LDAP connection changed',
      delete: 'LDAP connection deleted',
      test: 'LDAP connection tested',
    },
    config: {
      add: 'Configuration entry added',
      edit: 'Configuration entry changed',
      delete: 'Configuration entry deleted',
    },
    'password-policy': { update: 'Password policy changed' },
    key: {
      create: 'Key created',
      import: 'Key imported',
      update: 'Key changed',
      activate: 'Key activated',
      disable: 'Key disabled',
      recover: 'Key recovered',
      'add-version': 'Key version added',
      clone: 'Key cloned',
      export: 'Key exported',
      destroy: 'Key destroyed',
      delete: 'Key deleted',
    },
    crypto: {
      encrypt: 'Encrypt',
      decrypt: 'Decrypt',
      sign: 'Sign',
      verify: 'Verify',
      mac: 'MAC',
      'mac-verify': 'MAC verify',
      'data-key': 'Data key',
      wrap: 'Wrap',
      unwrap: 'Unwrap',
      encapsulate: 'Encapsulate',
      decapsulate: 'Decapsulate',
      random: 'Random bytes',
    },
  },
};
