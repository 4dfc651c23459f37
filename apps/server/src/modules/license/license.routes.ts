import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { LicenseService } from './license.service.js';

export function licenseRoutes(app: FastifyInstance, gate: Gatekeeper, license: LicenseService): void {
  registerCall(app, gate, api.license.lockdata, () => license.lockdata());
  registerCall(app, gate, api.license.list, () => license.overview());
  registerCall(app, gate, api.license.activate, ({ actor, meta, body }) =>
    license.activate(actor, meta, body.license),
  );
  registerCall(app, gate, api.license.delete, ({ actor, meta, body }) =>
    license.remove(actor, meta, body.row_id),
  );
}
