import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { KeyService } from './key.service.js';

export function keyRoutes(app: FastifyInstance, gate: Gatekeeper, keys: KeyService): void {
  registerCall(app, gate, api.key.list, ({ actor, query }) => keys.list(actor, query));
  registerCall(app, gate, api.key.detail, ({ actor, query }) => keys.detail(actor, query.id));
  registerCall(app, gate, api.key.versions, ({ actor, query }) => keys.versions(actor, query.id));
  registerCall(app, gate, api.key.audit, ({ actor, query }) => keys.audit(actor, query));
  registerCall(app, gate, api.key.create, ({ actor, meta, body }) => keys.create(actor, meta, body));
  registerCall(app, gate, api.key.import, ({ actor, meta, body }) => keys.import(actor, meta, body));
  registerCall(app, gate, api.key.update, ({ actor, meta, body }) => keys.update(actor, meta, body));
  registerCall(app, gate, api.key.activate, ({ actor, meta, body }) => keys.activate(actor, meta, body.id));
  registerCall(app, gate, api.key.disable, ({ actor, meta, body }) => keys.disable(actor, meta, body));
  registerCall(app, gate, api.key.recover, ({ actor, meta, body }) => keys.recover(actor, meta, body.id));
  registerCall(app, gate, api.key.addVersion, ({ actor, meta, body }) =>
    keys.addVersion(actor, meta, body.id),
  );
  registerCall(app, gate, api.key.clone, ({ actor, meta, body }) => keys.clone(actor, meta, body));
  registerCall(app, gate, api.key.export, ({ actor, meta, body }) => keys.export(actor, meta, body));
  registerCall(app, gate, api.key.destroy, ({ actor, meta, body }) => keys.destroy(actor, meta, body.id));
  registerCall(app, gate, api.key.delete, ({ actor, meta, body }) => keys.remove(actor, meta, body.ids));
}
