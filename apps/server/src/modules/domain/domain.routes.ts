import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { DomainService } from './domain.service.js';

export function domainRoutes(app: FastifyInstance, gate: Gatekeeper, domains: DomainService): void {
  registerCall(app, gate, api.domain.list, ({ actor, query }) => domains.list(actor, query));
  registerCall(app, gate, api.domain.create, ({ actor, meta, body }) => domains.create(actor, meta, body));
  registerCall(app, gate, api.domain.users, ({ actor, query }) => domains.users(actor, query.id));
  registerCall(app, gate, api.domain.update, ({ actor, meta, body }) => domains.update(actor, meta, body));
  registerCall(app, gate, api.domain.delete, ({ actor, meta, body }) =>
    domains.remove(actor, meta, body.ids),
  );
}
