import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { ClientService } from './client.service.js';

export function clientRoutes(app: FastifyInstance, gate: Gatekeeper, clients: ClientService): void {
  registerCall(app, gate, api.client.list, ({ actor, query }) => clients.list(actor, query));
  registerCall(app, gate, api.client.detail, ({ actor, query }) => clients.detail(actor, query.id));
  registerCall(app, gate, api.client.revoke, ({ actor, meta, body }) => clients.revoke(actor, meta, body.id));
  registerCall(app, gate, api.client.delete, ({ actor, meta, body }) => clients.remove(actor, meta, body.id));
  registerCall(app, gate, api.client.forceDelete, ({ actor, meta, body }) =>
    clients.forceRemove(actor, meta, body.id),
  );
  registerCall(app, gate, api.client.renew, ({ actor, meta, body }) => clients.renew(actor, meta, body.id));
  registerCall(app, gate, api.client.enrol, ({ meta, body }) => clients.enrol(meta, body));
  registerCall(app, gate, api.client.heartbeat, ({ meta, body }) => clients.heartbeat(meta, body));
  registerCall(app, gate, api.client.config, ({ meta, body, request }) =>
    clients.config(meta, body, request),
  );
}
