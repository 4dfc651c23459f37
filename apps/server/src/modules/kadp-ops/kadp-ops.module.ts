import { api } from '@ksp/contracts';
import type { KspModule } from '../../platform/module.js';
import { registerCall } from '../../platform/http/route.js';
import { createKadpOpsService } from './kadp-ops.service.js';

/** KADP client operations: the crypto API with a client identity, and the detail page's list (README.md). */
export const kadpOpsModule: KspModule = {
  name: 'kadp-ops',
  register(ctx) {
    const service = createKadpOpsService({
      db: ctx.db,
      clock: ctx.clock,
      clients: () => ctx.use('clients'),
      crypto: () => ctx.use('crypto'),
    });
    registerCall(ctx.app, ctx.gate, api.kadpOps.crypto, ({ meta, body }) => service.crypto(meta, body));
    registerCall(ctx.app, ctx.gate, api.kadpOps.operations, ({ actor, query }) =>
      service.operations(actor, query),
    );
  },
};
