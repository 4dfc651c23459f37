import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { QuantumService } from './quantum.service.js';

export function quantumRoutes(app: FastifyInstance, gate: Gatekeeper, quantum: QuantumService): void {
  registerCall(app, gate, api.quantum.status, () => Promise.resolve(quantum.status()));
  registerCall(app, gate, api.quantum.test, ({ actor, meta }) => quantum.test(actor, meta));
  registerCall(app, gate, api.quantum.update, ({ actor, meta, body }) => quantum.update(actor, meta, body));
}
