import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { SystemService } from './system.service.js';

export function systemRoutes(app: FastifyInstance, gate: Gatekeeper, system: SystemService): void {
  registerCall(app, gate, api.system.status, () => system.status());
  registerCall(app, gate, api.system.initComponent, ({ body, meta }) => system.nextComponent(body, meta));
  registerCall(app, gate, api.system.initFinish, ({ body, meta }) => system.finish(body, meta));
  registerCall(app, gate, api.system.activate, ({ body, meta }) => system.activate(body, meta));
}
