import type { KspModule } from '../../platform/module.js';
import {
  assertAddable,
  assertManageable,
  assertMembershipReach,
  canManageUser,
  domainIdsOf,
  visibleDomainIds,
} from './domain.reach.js';
import { domainRoutes } from './domain.routes.js';
import { createDomainService } from './domain.service.js';
import {
  addMember,
  countDomains,
  countMembers,
  domainNames,
  domainsOfUser,
  findDomainById,
  findDomainByName,
  insertDomain,
} from './domain.store.js';

/** What other modules read and change of domains and memberships, and how far a caller reaches. */
const domainDirectory = {
  addMember,
  countDomains,
  countMembers,
  domainNames,
  domainsOfUser,
  findDomainById,
  findDomainByName,
  insertDomain,
  assertAddable,
  assertManageable,
  assertMembershipReach,
  canManageUser,
  domainIdsOf,
  visibleDomainIds,
};

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Domains and memberships (users, roles, the directory, set-up and the dashboard use them). */
    domains: typeof domainDirectory;
  }
}

export const domainModule: KspModule = {
  name: 'domain',
  register(ctx) {
    ctx.provide('domains', domainDirectory);
    domainRoutes(
      ctx.app,
      ctx.gate,
      createDomainService({ db: ctx.db, keyring: ctx.keyring, clock: ctx.clock, audit: ctx.audit }),
    );
  },
};
