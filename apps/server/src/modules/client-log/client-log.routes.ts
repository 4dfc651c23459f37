import type { FastifyInstance, FastifyRequest } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { ClientLogService } from './client-log.service.js';

/**
 * The client records' calls. The upload's token signs a hash of the exact body bytes, so its
 * route sits in a scope of its own whose JSON parser keeps those bytes (the default parser
 * and its prototype-poisoning checks still parse them).
 */
export function clientLogRoutes(app: FastifyInstance, gate: Gatekeeper, logs: ClientLogService): void {
  const rawBodies = new WeakMap<FastifyRequest, Buffer>();
  void app.register((scope, _options, done) => {
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, next) => {
      const bytes = body as Buffer;
      rawBodies.set(req, bytes);
      void parseJson(req, bytes.toString('utf8'), next);
    });
    registerCall(scope, gate, api.clientLog.upload, ({ meta, body, request }) =>
      logs.upload(meta, {
        authorization: request.headers.authorization,
        rawBody: rawBodies.get(request) ?? Buffer.alloc(0),
        body,
      }),
    );
    done();
  });
  registerCall(app, gate, api.clientLog.list, ({ actor, query }) => logs.list(actor, query));
  registerCall(app, gate, api.clientLog.detail, ({ actor, query }) => logs.detail(actor, query.id));
  registerCall(app, gate, api.clientLog.export, ({ actor, meta, query }) => logs.export(actor, meta, query));
}
