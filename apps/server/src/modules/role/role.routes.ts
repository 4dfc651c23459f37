import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { RoleService } from './role.service.js';

export function roleRoutes(app: FastifyInstance, gate: Gatekeeper, roles: RoleService): void {
  registerCall(app, gate, api.role.list, ({ actor, query }) => roles.list(actor, query));
  registerCall(app, gate, api.role.permissionTree, () => Promise.resolve(roles.permissionTree()));
  registerCall(app, gate, api.role.create, ({ actor, meta, body }) => roles.create(actor, meta, body));
  registerCall(app, gate, api.role.update, ({ actor, meta, body }) => roles.update(actor, meta, body));
  registerCall(app, gate, api.role.delete, ({ actor, meta, body }) => roles.remove(actor, meta, body.ids));
  registerCall(app, gate, api.role.assign, ({ actor, meta, body }) => roles.assign(actor, meta, body));
  registerCall(app, gate, api.role.unassign, ({ actor, meta, body }) => roles.unassign(actor, meta, body));
}
