import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { TdePolicyService } from './tde-policy.service.js';

export function tdePolicyRoutes(app: FastifyInstance, gate: Gatekeeper, s: TdePolicyService): void {
  const cte = api.tdePolicy;
  const rdm = api.rdmPolicy;
  registerCall(app, gate, cte.elementList, ({ actor, query }) => s.elementList(actor, query));
  registerCall(app, gate, cte.elementDetail, ({ actor, query }) => s.elementDetail(actor, query.id));
  registerCall(app, gate, cte.elementCreate, ({ actor, meta, body }) => s.elementCreate(actor, meta, body));
  registerCall(app, gate, cte.elementUpdate, ({ actor, meta, body }) => s.elementUpdate(actor, meta, body));
  registerCall(app, gate, cte.elementDelete, ({ actor, meta, body }) =>
    s.elementDelete(actor, meta, body.id),
  );
  registerCall(app, gate, cte.policyList, ({ actor, query }) => s.policyList(actor, 'cte', query));
  registerCall(app, gate, cte.policyDetail, ({ actor, query }) => s.policyDetail(actor, 'cte', query.id));
  registerCall(app, gate, cte.policyCreate, ({ actor, meta, body }) => s.policyCreate(actor, meta, body));
  registerCall(app, gate, cte.policyUpdate, ({ actor, meta, body }) =>
    s.policyUpdate(actor, meta, 'cte', body),
  );
  registerCall(app, gate, cte.policyDelete, ({ actor, meta, body }) =>
    s.policyDelete(actor, meta, 'cte', body.id),
  );
  registerCall(app, gate, cte.keyOptions, ({ actor }) => s.keyOptions(actor));
  registerCall(app, gate, cte.profileList, ({ actor, query }) => s.profileList(actor, query));
  registerCall(app, gate, cte.profileDetail, ({ actor, query }) => s.profileDetail(actor, query.name));
  registerCall(app, gate, cte.profileCreate, ({ actor, meta, body }) => s.profileCreate(actor, meta, body));
  registerCall(app, gate, cte.profileUpdate, ({ actor, meta, body }) => s.profileUpdate(actor, meta, body));
  registerCall(app, gate, cte.profileDelete, ({ actor, meta, body }) =>
    s.profileDelete(actor, meta, body.name),
  );

  registerCall(app, gate, rdm.elementList, ({ actor, query }) => s.elementList(actor, query));
  registerCall(app, gate, rdm.elementDetail, ({ actor, query }) => s.elementDetail(actor, query.id));
  registerCall(app, gate, rdm.policyList, ({ actor, query }) => s.policyList(actor, 'rdm', query));
  registerCall(app, gate, rdm.policyDetail, ({ actor, query }) => s.policyDetail(actor, 'rdm', query.id));
  registerCall(app, gate, rdm.policyCreate, ({ actor, meta, body }) => s.policyCreate(actor, meta, body));
  registerCall(app, gate, rdm.policyUpdate, ({ actor, meta, body }) =>
    s.policyUpdate(actor, meta, 'rdm', body),
  );
  registerCall(app, gate, rdm.policyDelete, ({ actor, meta, body }) =>
    s.policyDelete(actor, meta, 'rdm', body.id),
  );
}
