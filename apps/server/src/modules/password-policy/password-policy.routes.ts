import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { PasswordPolicyService } from './password-policy.service.js';

export function passwordPolicyRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  policy: PasswordPolicyService,
): void {
  registerCall(app, gate, api.passwordPolicy.get, () => policy.get());
  registerCall(app, gate, api.passwordPolicy.update, ({ actor, meta, body }) =>
    policy.update(actor, meta, body),
  );
}
