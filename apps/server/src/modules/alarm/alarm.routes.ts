import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { AlarmService } from './alarm.service.js';

export function alarmRoutes(app: FastifyInstance, gate: Gatekeeper, alarms: AlarmService): void {
  registerCall(app, gate, api.alarm.ruleList, ({ actor, query }) => alarms.listRules(actor, query));
  registerCall(app, gate, api.alarm.ruleCreate, ({ actor, meta, body }) =>
    alarms.createRule(actor, meta, body),
  );
  registerCall(app, gate, api.alarm.ruleUpdate, ({ actor, meta, body }) =>
    alarms.updateRule(actor, meta, body),
  );
  registerCall(app, gate, api.alarm.ruleDelete, ({ actor, meta, body }) =>
    alarms.deleteRules(actor, meta, body.ids),
  );
  registerCall(app, gate, api.alarm.list, ({ actor, query }) => alarms.list(actor, query));
  registerCall(app, gate, api.alarm.acknowledge, ({ actor, meta, body }) =>
    alarms.acknowledge(actor, meta, body.ids),
  );
  registerCall(app, gate, api.alarm.summary, ({ actor }) => alarms.summary(actor));
}
