import type { KspModule } from '../../platform/module.js';
import { productRoutes } from './product.routes.js';
import { createProductService } from './product.service.js';

/** The product page: the sub-console tiles' live counts and licence state (README.md). */
export const productModule: KspModule = {
  name: 'product',
  register(ctx) {
    const service = createProductService({
      db: ctx.db,
      clock: ctx.clock,
      license: () => ctx.maybeUse('license'),
    });
    productRoutes(ctx.app, ctx.gate, service);
  },
};
