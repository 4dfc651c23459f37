import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { LdapService } from './ldap.service.js';

export function ldapRoutes(app: FastifyInstance, gate: Gatekeeper, ldap: LdapService): void {
  registerCall(app, gate, api.ldap.list, ({ query }) => ldap.list(query));
  registerCall(app, gate, api.ldap.create, ({ actor, meta, body }) => ldap.create(actor, meta, body));
  registerCall(app, gate, api.ldap.update, ({ actor, meta, body }) => ldap.update(actor, meta, body));
  registerCall(app, gate, api.ldap.delete, ({ actor, meta, body }) => ldap.remove(actor, meta, body.ids));
  registerCall(app, gate, api.ldap.test, ({ actor, meta, body }) => ldap.test(actor, meta, body));
}
