import { api } from '@ksp/contracts';
import { call } from './client';

export const productKeys = { overview: ['product', 'overview'] as const };

export function fetchProductOverview() {
  return call(api.product.overview, {});
}
