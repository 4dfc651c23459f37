import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { SyslogService } from './syslog.service.js';

export function syslogRoutes(app: FastifyInstance, gate: Gatekeeper, syslog: SyslogService): void {
  registerCall(app, gate, api.syslog.list, ({ query }) => syslog.list(query));
  registerCall(app, gate, api.syslog.create, ({ actor, meta, body }) => syslog.create(actor, meta, body));
  registerCall(app, gate, api.syslog.update, ({ actor, meta, body }) => syslog.update(actor, meta, body));
  registerCall(app, gate, api.syslog.delete, ({ actor, meta, body }) => syslog.remove(actor, meta, body.ids));
  registerCall(app, gate, api.syslog.test, ({ actor, meta, body }) => syslog.test(actor, meta, body.id));
}
