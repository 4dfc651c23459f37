import type { FastifyInstance } from 'fastify';
import { api, consoleAreas } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { UserAdminService } from './user-admin.service.js';
import type { UserService } from './user.service.js';
import type { UkeyService } from './ukey.service.js';

export function userRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  users: UserService,
  admin: UserAdminService,
  ukey: UkeyService,
): void {
  // Signing in and the signed-in user.
  registerCall(app, gate, api.user.login, ({ body, meta }) => users.login(body, meta));
  registerCall(app, gate, api.user.info, ({ actor }) =>
    users.describe(actor.userId, actor.domainName, actor.permissions, actor.kind),
  );
  registerCall(app, gate, api.user.logout, ({ actor, meta }) => users.logout(actor, meta));
  registerCall(app, gate, api.token.refresh, ({ actor, meta }) => users.refresh(actor, meta));
  registerCall(app, gate, api.user.switchDomain, ({ actor, body, meta }) =>
    users.switchDomain(actor, body.domain_name, meta),
  );
  registerCall(app, gate, api.user.updateMyPassword, ({ actor, body, meta }) =>
    users.updateMyPassword(actor, body, meta),
  );
  registerCall(app, gate, api.user.passwordRules, () => users.passwordRules());
  registerCall(app, gate, api.user.appLogin, ({ meta, body }) => admin.appLogin(body, meta));
  registerCall(app, gate, api.user.kadpToken, ({ actor, meta }) =>
    admin.scopedToken(actor, meta, consoleAreas.kadp.token),
  );
  registerCall(app, gate, api.user.ssmToken, ({ actor, meta }) =>
    admin.scopedToken(actor, meta, consoleAreas.credential.token),
  );
  registerCall(app, gate, api.user.tdeToken, ({ actor, meta }) =>
    admin.scopedToken(actor, meta, consoleAreas.cte.token),
  );
  registerCall(app, gate, api.user.rdmToken, ({ actor, meta }) =>
    admin.scopedToken(actor, meta, consoleAreas.rdm.token),
  );
  registerCall(app, gate, api.user.kmsToken, ({ actor, meta }) =>
    admin.scopedToken(actor, meta, consoleAreas.kms.token),
  );
  registerCall(app, gate, api.user.updateSecret, ({ actor, meta, body }) =>
    admin.updateSecret(actor, meta, body),
  );
  registerCall(app, gate, api.user.updateEmail, ({ actor, body, meta }) =>
    admin.updateEmail(actor, meta, body),
  );

  // Administration of users.
  registerCall(app, gate, api.user.list, ({ actor, query }) => admin.list(actor, query));
  registerCall(app, gate, api.user.create, ({ actor, meta, body }) => admin.create(actor, meta, body));
  registerCall(app, gate, api.user.update, ({ actor, meta, body }) => admin.update(actor, meta, body));
  registerCall(app, gate, api.user.delete, ({ actor, meta, body }) => admin.remove(actor, meta, body.ids));
  registerCall(app, gate, api.user.detailGroups, ({ actor, body }) => admin.detail(actor, body.id));
  registerCall(app, gate, api.user.updatePassword, ({ actor, meta, body }) =>
    admin.resetPassword(actor, meta, body),
  );
  registerCall(app, gate, api.user.updatePasswordNextLogin, ({ actor, meta, body }) =>
    admin.requireChange(actor, meta, body),
  );
  registerCall(app, gate, api.user.unlock, ({ actor, meta, body }) => admin.unlock(actor, meta, body.id));
  registerCall(app, gate, api.user.updateIp, ({ actor, meta, body }) => admin.updateIp(actor, meta, body));
  registerCall(app, gate, api.user.sendSdkUser, ({ actor, meta, body }) =>
    admin.sendSdkUser(actor, meta, body.id),
  );
  registerCall(app, gate, api.user.domainAddUser, ({ actor, body, meta }) =>
    admin.addToDomain(actor, meta, body),
  );
  registerCall(app, gate, api.user.domainDeleteUser, ({ actor, body, meta }) =>
    admin.removeFromDomain(actor, meta, body),
  );

  // UKEY second factor.
  registerCall(app, gate, api.user.bindUkey, ({ actor, meta, body }) => ukey.bind(actor, meta, body));
  registerCall(app, gate, api.user.unbindUkey, ({ actor, meta, body }) => ukey.unbind(actor, meta, body.id));
  registerCall(app, gate, api.user.random, ({ query }) => ukey.random(query.name));
  registerCall(app, gate, api.user.verify, ({ meta, body }) => ukey.verify(body, meta));
}
