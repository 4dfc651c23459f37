import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { CredentialService } from './credential.service.js';

export function credentialRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  credentials: CredentialService,
): void {
  registerCall(app, gate, api.credential.list, ({ actor, query }) => credentials.list(actor, query));
  registerCall(app, gate, api.credential.detail, ({ actor, query }) => credentials.detail(actor, query.id));
  registerCall(app, gate, api.credential.create, ({ actor, meta, body }) =>
    credentials.create(actor, meta, body),
  );
  registerCall(app, gate, api.credential.update, ({ actor, meta, body }) =>
    credentials.update(actor, meta, body),
  );
  registerCall(app, gate, api.credential.addVersion, ({ actor, meta, body }) =>
    credentials.addVersion(actor, meta, body.id, body.value),
  );
  registerCall(app, gate, api.credential.delete, ({ actor, meta, body }) =>
    credentials.remove(actor, meta, body.ids),
  );
  registerCall(app, gate, api.credential.generatePassword, ({ body }) =>
    Promise.resolve(credentials.generatePassword(body)),
  );
  registerCall(app, gate, api.credential.reveal, ({ actor, meta, body }) =>
    credentials.reveal(actor, meta, body),
  );
  registerCall(app, gate, api.credential.value, ({ actor, meta, body }) =>
    credentials.readValue(actor, meta, body),
  );
}
