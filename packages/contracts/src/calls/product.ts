import { z } from 'zod';
import { defineCall } from '../call.js';
import { licenseFeatures } from './license.js';

/**
 * The product page (docs/console.md#products-and-sub-consoles): its product list as tiles, each
 * opening its sub-console with a token scoped to it (areas.ts, `user/*_token`).
 */
export const productIds = ['tde', 'kadp', 'kms', 'rdm', 'sms'] as const;
export type ProductId = (typeof productIds)[number];

/** Figures a tile may show. */
export const productFigureNames = [
  'clients',
  'healthy',
  'warning',
  'error',
  'revoked',
  'keys',
  'in_use',
  'inactive',
  'disabled',
  'credentials',
  'servers',
] as const;
export type ProductFigureName = (typeof productFigureNames)[number];

export const ProductTile = z.object({
  product: z.enum(productIds),
  area: z
    .enum(['cte', 'kadp', 'kms', 'rdm', 'credential'])
    .describe('the console area (areas.ts) the tile opens: its path and token call follow from it'),
  permitted: z
    .boolean()
    .describe(
      "the caller holds the area's read permission: it may ask the token call; otherwise the tile is disabled and shows no figures",
    ),
  figures: z
    .array(z.object({ name: z.enum(productFigureNames), value: z.number().int() }))
    .describe(
      "live counts of the caller's current domain only: clients by status (tde, rdm, kadp; deleted ones not counted), keys by state label (kms; destroyed not counted), credentials and servers (sms); empty when not permitted",
    ),
  license: z.object({
    feature: z.enum(licenseFeatures),
    state: z
      .enum(['licensed', 'community', 'expired'])
      .describe(
        'licensed: an active licence grants the feature; community: unlicensed, the community limit applies; expired: every licence has expired (new objects are refused)',
      ),
    total: z.number().int().describe('authorised quantity (licence total or community limit)'),
    used: z
      .number()
      .int()
      .nullable()
      .describe(
        'installation-wide use of the quota: shown to root-domain sessions only (it counts every domain), null elsewhere',
      ),
    not_after: z
      .string()
      .nullable()
      .describe('end of the latest active licence granting it; null when unlicensed'),
  }),
});
export type ProductTile = z.infer<typeof ProductTile>;

export const productCalls = {
  overview: defineCall({
    method: 'GET',
    path: '/v1/ksp/product/overview',
    summary:
      "The product page's tiles: per sub-console, live counts of the caller's domain and the licence state of its feature",
    tag: 'product',
    access: 'product:read',
    data: z.object({ tiles: z.array(ProductTile) }),
  }),
};
