import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { RegistrationTokenService } from './registration-token.service.js';

export function registrationTokenRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  tokens: RegistrationTokenService,
): void {
  registerCall(app, gate, api.registrationToken.list, ({ actor, query }) => tokens.list(actor, query));
  registerCall(app, gate, api.registrationToken.create, ({ actor, meta, body }) =>
    tokens.create(actor, meta, body),
  );
  registerCall(app, gate, api.registrationToken.update, ({ actor, meta, body }) =>
    tokens.update(actor, meta, body),
  );
  registerCall(app, gate, api.registrationToken.renew, ({ actor, meta, body }) =>
    tokens.renew(actor, meta, body.id),
  );
  registerCall(app, gate, api.registrationToken.delete, ({ actor, meta, body }) =>
    tokens.remove(actor, meta, body.ids),
  );
}
