import type { KspModule, ModuleServices } from '../../platform/module.js';
import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import { credentialRoutes } from './credential.routes.js';
import { createCredentialService, type CredentialService } from './credential.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /**
     * Credentials for other modules: describe, open the current value, add a rotated version, link
     * (servers); and the calls KMIP's Secret Data operations are the twins of (docs/kmip.md#secret-data).
     */
    credentials: Pick<
      CredentialService,
      | 'describe'
      | 'openCurrent'
      | 'addRotatedVersion'
      | 'link'
      | 'generatePassword'
      | 'list'
      | 'detail'
      | 'create'
      | 'remove'
      | 'readValue'
    >;
  }
}

/** Credentials of the SMS sub-console: sealed values, versions, reveal and application reads (README.md). */
export const credentialModule: KspModule = {
  name: 'credential',
  register(ctx) {
    // The user services are looked up at the first reveal (the user module is listed earlier).
    let users: ModuleServices['users'] | undefined;
    let userRecords: ModuleServices['userRecords'] | undefined;
    const service = createCredentialService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      sealer: createDomainSealer({ keyring: ctx.keyring }),
      users: () => (users ??= ctx.use('users')),
      userRecords: () => (userRecords ??= ctx.use('userRecords')),
      // The servers module is listed after this one: looked up when a server id is given.
      servers: () => ctx.use('servers'),
    });
    ctx.provide('credentials', service);
    credentialRoutes(ctx.app, ctx.gate, service);
  },
};
