import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';

export const tokenUsages = ['cte', 'rdm', 'kadp', 'kmip'] as const;
export const DEFAULT_CERT_VALIDITY_DAYS = 365;

/** Expiry: "-" means forever, otherwise an ISO 8601 date-time in the future. */
export const TokenExpiry = z.union([z.literal('-'), z.iso.datetime({ offset: true })]);

export const RegistrationToken = z.object({
  id: z.string(),
  name: z.string(),
  usage: z.enum(tokenUsages),
  expires_at: z.string(),
  cert_validity_days: z.number().int(),
  capacity: z.number().int(),
  used: z.number().int(),
  /** null when the capacity is unlimited (0). */
  remaining: z.number().int().nullable(),
  status: z.enum(['valid', 'expired', 'exhausted']),
  created_at: z.string(),
});

const tokenShape = {
  name: objectName(64),
  usage: z.enum(tokenUsages),
  expires_at: TokenExpiry,
  cert_validity_days: z.number().int().min(1).max(3650),
  capacity: z.number().int().min(0).max(1_000_000),
};
const TokenFields = z.object({
  ...tokenShape,
  expires_at: tokenShape.expires_at.default('-'),
  cert_validity_days: tokenShape.cert_validity_days.default(DEFAULT_CERT_VALIDITY_DAYS),
  capacity: tokenShape.capacity.default(0),
});

export const registrationTokenCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/token/list',
    summary: 'Registration tokens of the current domain',
    tag: 'token',
    access: 'token:read',
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional(),
      usage: z.enum(tokenUsages).optional(),
    }),
    data: pageOf(RegistrationToken),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/token/create',
    summary: 'Create a registration token; its secret is returned once',
    tag: 'token',
    access: 'token:write',
    body: TokenFields,
    data: RegistrationToken.extend({ secret: z.string() }),
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/token/update',
    summary: 'Change a registration token (the secret stays)',
    tag: 'token',
    access: 'token:write',
    body: z.object(tokenShape).partial().extend({ id: Id }),
    data: RegistrationToken,
  }),
  renew: defineCall({
    method: 'POST',
    path: '/v1/ksp/token/renew',
    summary: 'Replace the secret of a registration token; the new one is returned once',
    tag: 'token',
    access: 'token:write',
    body: z.object({ id: Id }),
    data: RegistrationToken.extend({ secret: z.string() }),
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/token/delete',
    summary: 'Delete registration tokens',
    tag: 'token',
    access: 'token:write',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
};
