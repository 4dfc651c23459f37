import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { ProductService } from './product.service.js';

export function productRoutes(app: FastifyInstance, gate: Gatekeeper, product: ProductService): void {
  registerCall(app, gate, api.product.overview, ({ actor }) => product.overview(actor));
}
