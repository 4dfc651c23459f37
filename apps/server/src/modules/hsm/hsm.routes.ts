import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { HsmService } from './hsm.service.js';

export function hsmRoutes(app: FastifyInstance, gate: Gatekeeper, hsm: HsmService): void {
  registerCall(app, gate, api.hsm.status, () => hsm.status());
  registerCall(app, gate, api.hsm.bind, ({ actor, meta, body }) => hsm.bind(actor, meta, body));
  registerCall(app, gate, api.hsm.unbind, ({ actor, meta }) => hsm.unbind(actor, meta));
  registerCall(app, gate, api.hsm.test, ({ actor, meta, body }) => hsm.test(actor, meta, body));
  registerCall(app, gate, api.hsm.certificates, ({ actor, meta, body }) =>
    hsm.certificates(actor, meta, body),
  );
}
