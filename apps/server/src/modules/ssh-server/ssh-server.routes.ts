import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { SshServerService } from './ssh-server.service.js';
import type { Recordings } from './ssh-server.recording.js';
import type { RoleOptions } from './ssh-server.role-options.js';
import type { Terminals } from './ssh-server.terminal.js';

export function sshServerRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  servers: SshServerService,
  terminals: Terminals,
  recordings: Recordings,
  roleOptions: RoleOptions,
): void {
  registerCall(app, gate, api.sshServer.terminalTicket, ({ actor, meta, body }) =>
    terminals.issue(actor, meta, body.id),
  );
  registerCall(app, gate, api.sshServer.list, ({ actor, query }) => servers.list(actor, query));
  registerCall(app, gate, api.sshServer.roleOptions, ({ actor, query }) => roleOptions.list(actor, query));
  registerCall(app, gate, api.sshServer.detail, ({ actor, query }) => servers.detail(actor, query.id));
  registerCall(app, gate, api.sshServer.create, ({ actor, meta, body }) => servers.create(actor, meta, body));
  registerCall(app, gate, api.sshServer.update, ({ actor, meta, body }) => servers.update(actor, meta, body));
  registerCall(app, gate, api.sshServer.delete, ({ actor, meta, body }) =>
    servers.remove(actor, meta, body.ids),
  );
  registerCall(app, gate, api.sshServer.fetchFingerprint, ({ actor, meta, body }) =>
    servers.fetchFingerprint(actor, meta, body),
  );
  registerCall(app, gate, api.sshServer.confirmFingerprint, ({ actor, meta, body }) =>
    servers.confirmFingerprint(actor, meta, body.id, body.fingerprint),
  );
  registerCall(app, gate, api.sshServer.test, ({ actor, meta, body }) => servers.test(actor, meta, body.id));
  registerCall(app, gate, api.sshServer.rotate, ({ actor, meta, body }) =>
    servers.rotate(actor, meta, body.id),
  );
  registerCall(app, gate, api.sshServer.rotations, ({ actor, meta, query }) =>
    servers.rotations(actor, meta, query),
  );
  registerCall(app, gate, api.sshServer.sessions, async ({ actor, query }) => {
    const server = await servers.visible(actor, query.id);
    return recordings.list(server.id, query.page, query.page_size);
  });
  registerCall(app, gate, api.sshServer.recording, async ({ actor, meta, query }) => {
    const { session, serverId } = await recordings.find(actor, query.id);
    const server = await servers.visible(actor, serverId);
    const cast = await recordings.cast(actor, session.id, `${server.name} — ${session.user_name}`);
    await servers.terminalAudit(actor, meta, 'server.session.replay', server, {
      session: session.id,
      user: session.user_name,
    });
    return { session, server_id: server.id, cast };
  });
}
