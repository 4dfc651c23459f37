import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { LogService } from './log.service.js';

export function logRoutes(app: FastifyInstance, gate: Gatekeeper, logs: LogService): void {
  registerCall(app, gate, api.log.list, ({ actor, query }) => logs.list(actor, query));
  registerCall(app, gate, api.log.detail, ({ actor, query }) => logs.detail(actor, query.id));
  registerCall(app, gate, api.log.verify, ({ actor, meta }) => logs.verify(actor, meta));
  registerCall(app, gate, api.log.export, ({ actor, meta, query }) => logs.export(actor, meta, query));
}
