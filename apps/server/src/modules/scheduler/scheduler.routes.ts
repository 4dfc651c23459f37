import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { SchedulerService } from './scheduler.service.js';

export function schedulerRoutes(app: FastifyInstance, gate: Gatekeeper, scheduler: SchedulerService): void {
  registerCall(app, gate, api.scheduler.list, ({ actor, meta, query }) => scheduler.list(actor, meta, query));
  registerCall(app, gate, api.scheduler.create, ({ actor, meta, body }) =>
    scheduler.create(actor, meta, body),
  );
  registerCall(app, gate, api.scheduler.update, ({ actor, meta, body }) =>
    scheduler.update(actor, meta, body),
  );
  registerCall(app, gate, api.scheduler.delete, ({ actor, meta, body }) =>
    scheduler.remove(actor, meta, body.ids),
  );
  registerCall(app, gate, api.scheduler.enable, ({ actor, meta, body }) =>
    scheduler.setEnabled(actor, meta, body.id, true),
  );
  registerCall(app, gate, api.scheduler.disable, ({ actor, meta, body }) =>
    scheduler.setEnabled(actor, meta, body.id, false),
  );
  registerCall(app, gate, api.scheduler.runNow, ({ actor, meta, body }) =>
    scheduler.runNow(actor, meta, body.id),
  );
  registerCall(app, gate, api.scheduler.history, ({ actor, meta, query }) =>
    scheduler.history(actor, meta, query),
  );
}
