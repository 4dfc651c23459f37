import type { KspModule } from '../../platform/module.js';
import { createSecretBox } from '../../platform/keyring/secret-box.js';
import { createLdapService, type LdapService } from './ldap.service.js';
import { ldapRoutes } from './ldap.routes.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Directory connections; the user module signs directory users in through it. */
    ldap: LdapService;
  }
}

export const ldapModule: KspModule = {
  name: 'ldap',
  register(ctx) {
    const ldap = createLdapService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      secrets: createSecretBox({ db: ctx.db, keyring: ctx.keyring }),
      domains: ctx.use('domains'),
      roles: ctx.use('roles'),
      // The user module is listed after this one (it signs directory users in here): read at call time.
      userRecords: () => ctx.use('userRecords'),
    });
    ctx.provide('ldap', ldap);
    ldapRoutes(ctx.app, ctx.gate, ldap);
  },
};
