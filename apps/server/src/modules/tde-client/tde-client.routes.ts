import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { AgentType } from './tde-client.context.js';
import type { TdeClientService } from './tde-client.service.js';

/** The client and guard point calls of one sub-console (CTE: `api.tdeClient`, RDM: `api.rdmClient`). */
function agentClientRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  s: TdeClientService,
  calls: typeof api.rdmClient,
  type: AgentType,
): void {
  registerCall(app, gate, calls.list, ({ actor, query }) => s.clients.list(actor, query, type));
  registerCall(app, gate, calls.detail, ({ actor, query }) => s.clients.detail(actor, query.id, type));
  registerCall(app, gate, calls.revoke, ({ actor, meta, body }) =>
    s.clients.revoke(actor, meta, body.id, type),
  );
  registerCall(app, gate, calls.delete, ({ actor, meta, body }) =>
    s.clients.remove(actor, meta, body.id, type),
  );
  registerCall(app, gate, calls.forceDelete, ({ actor, meta, body }) =>
    s.clients.forceRemove(actor, meta, body.id, type),
  );
  registerCall(app, gate, calls.renew, ({ actor, meta, body }) =>
    s.clients.renew(actor, meta, body.id, type),
  );
  registerCall(app, gate, calls.setProfile, ({ actor, meta, body }) =>
    s.clients.setProfile(actor, meta, body.id, body.profile, type),
  );
  registerCall(app, gate, calls.setCommunication, ({ actor, meta, body }) =>
    s.clients.setCommunication(actor, meta, body.id, body.enabled, type),
  );
  registerCall(app, gate, calls.guardPoints, ({ actor, query }) => s.guardPoints.list(actor, query, type));
  registerCall(app, gate, calls.guardPointCreate, ({ actor, meta, body }) =>
    s.guardPoints.create(actor, meta, body, type),
  );
  registerCall(app, gate, calls.guardPointSetEnabled, ({ actor, meta, body }) =>
    s.guardPoints.setEnabled(actor, meta, body.id, body.enabled, type),
  );
  registerCall(app, gate, calls.guardPointDelete, ({ actor, meta, body }) =>
    s.guardPoints.remove(actor, meta, body.id, type),
  );
}

export function tdeClientRoutes(app: FastifyInstance, gate: Gatekeeper, s: TdeClientService): void {
  agentClientRoutes(app, gate, s, api.tdeClient, 'tde');
  agentClientRoutes(app, gate, s, api.rdmClient, 'rdm');
  const c = api.tdeClient;
  registerCall(app, gate, c.lock, ({ actor, meta, body }) =>
    s.clients.setLocked(actor, meta, body.id, body.locked),
  );
  registerCall(app, gate, c.authBinaries, ({ actor, query }) => s.authBinaries.list(actor, query));
  registerCall(app, gate, c.authBinariesSet, ({ actor, meta, body }) =>
    s.authBinaries.set(actor, meta, body),
  );
  registerCall(app, gate, c.groupList, ({ actor, query }) => s.groups.list(actor, query));
  registerCall(app, gate, c.groupDetail, ({ actor, query }) => s.groups.detail(actor, query.id));
  registerCall(app, gate, c.groupCreate, ({ actor, meta, body }) => s.groups.create(actor, meta, body));
  registerCall(app, gate, c.groupUpdate, ({ actor, meta, body }) => s.groups.update(actor, meta, body));
  registerCall(app, gate, c.groupDelete, ({ actor, meta, body }) => s.groups.remove(actor, meta, body.id));
  registerCall(app, gate, c.groupAddMembers, ({ actor, meta, body }) =>
    s.groups.addMembers(actor, meta, body.id, body.client_ids),
  );
  registerCall(app, gate, c.groupRemoveMembers, ({ actor, meta, body }) =>
    s.groups.removeMembers(actor, meta, body.id, body.client_ids),
  );
}
