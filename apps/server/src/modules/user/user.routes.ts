import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { UserService } from './user.service.js';

export function userRoutes(app: FastifyInstance, gate: Gatekeeper, users: UserService): void {
  registerCall(app, gate, api.user.login, ({ body, meta }) => users.login(body, meta));
  registerCall(app, gate, api.user.info, ({ actor }) => users.describe(actor.userId, actor.domainName));
  registerCall(app, gate, api.user.logout, ({ actor, meta }) => users.logout(actor, meta));
  registerCall(app, gate, api.token.refresh, ({ actor, meta }) => users.refresh(actor, meta));
  registerCall(app, gate, api.user.switchDomain, ({ actor, body, meta }) =>
    users.switchDomain(actor, body.domain_name, meta),
  );
  registerCall(app, gate, api.user.updateEmail, ({ actor, body, meta }) =>
    users.updateEmail(actor, body.email, meta),
  );
  registerCall(app, gate, api.user.updateMyPassword, ({ actor, body, meta }) =>
    users.updateMyPassword(actor, body, meta),
  );
  registerCall(app, gate, api.user.passwordRules, () => users.passwordRules());
  registerCall(app, gate, api.user.domainAddUser, ({ actor, body, meta }) =>
    users.addUsersToDomain(actor, body, meta),
  );
}
