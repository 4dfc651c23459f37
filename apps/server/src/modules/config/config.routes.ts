import type { FastifyInstance } from 'fastify';
import { api, LOGO_MAX_BYTES } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { ConfigService } from './config.service.js';

export function configRoutes(app: FastifyInstance, gate: Gatekeeper, config: ConfigService): void {
  registerCall(app, gate, api.config.list, ({ query }) => config.list(query));
  registerCall(app, gate, api.config.add, ({ actor, meta, body }) => config.add(actor, meta, body));
  registerCall(app, gate, api.config.edit, ({ actor, meta, body }) => config.edit(actor, meta, body));
  registerCall(app, gate, api.config.delete, ({ actor, meta, body }) => config.remove(actor, meta, body.ids));
  registerCall(app, gate, api.config.outlist, () => config.outlist());
  registerCall(app, gate, api.config.upload, async ({ actor, meta, request }) => {
    if (!request.isMultipart()) return config.uploadLogo(actor, meta, null);
    const part = await request.file({ limits: { fileSize: LOGO_MAX_BYTES, files: 1 } });
    if (!part || part.fieldname !== 'file') return config.uploadLogo(actor, meta, null);
    const bytes = await part.toBuffer().catch((err: { code?: string }) => {
      if (err.code === 'FST_REQ_FILE_TOO_LARGE') return null;
      throw err;
    });
    return config.uploadLogo(actor, meta, {
      field: part.fieldname,
      bytes: bytes ?? Buffer.alloc(LOGO_MAX_BYTES + 1),
      truncated: bytes === null || part.file.truncated,
    });
  });
}
