import { z } from 'zod';
import { defineCall } from '../call.js';
import { DomainName, PageQuery, pageOf } from '../common.js';

export const Domain = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  parent_id: z.string().nullable(),
  users: z.number().int(),
  created_at: z.string(),
});

export const domainCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/domain/list',
    summary: 'Domains',
    tag: 'domain',
    access: 'domain:read',
    query: PageQuery.extend({ name: z.string().trim().max(64).optional() }),
    data: pageOf(Domain),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/domain/create',
    summary: 'Create a domain under the root domain',
    tag: 'domain',
    access: 'domain:write',
    body: z.object({ name: DomainName, description: z.string().trim().max(256).default('') }),
    data: Domain,
  }),
};
