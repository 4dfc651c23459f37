import { z } from 'zod';
import { defineCall } from '../call.js';
import { DomainName, Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { NamedRef } from './access-common.js';

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
  users: defineCall({
    method: 'GET',
    path: '/v1/ksp/domain/users',
    summary: 'Members of a domain',
    tag: 'domain',
    access: 'domain:read',
    query: z.object({ id: Id }),
    data: z.array(NamedRef),
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/domain/update',
    summary: 'Rename or describe a domain (the root domain keeps its name)',
    tag: 'domain',
    access: 'domain:write',
    scope: 'system',
    body: z.object({
      id: Id,
      name: DomainName.optional(),
      description: z.string().trim().max(256).optional(),
    }),
    data: Domain,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/domain/delete',
    summary: 'Delete empty domains (no members, no objects); never the root domain',
    tag: 'domain',
    access: 'domain:write',
    scope: 'system',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/domain/create',
    summary: 'Create a domain under the root domain',
    tag: 'domain',
    access: 'domain:write',
    scope: 'system',
    body: z.object({ name: DomainName, description: z.string().trim().max(256).default('') }),
    data: Domain,
  }),
};
