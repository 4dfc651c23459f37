import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { CONFIG_VALUE_MAX } from '../config-entries.js';

export const ConfigKey = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/);

export const ConfigEntry = z.object({
  id: z.string(),
  key: z.string(),
  value: z.string(),
  public: z.boolean(),
  built_in: z.boolean(),
  read_only: z.boolean(),
  description: z.string(),
  updated_at: z.string(),
});

export const PublicConfigEntry = z.object({ key: z.string(), value: z.string() });

export const configCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/admin/config/list',
    summary: 'Configuration entries',
    tag: 'config',
    access: 'config:read',
    scope: 'system',
    query: PageQuery.extend({ key: z.string().trim().max(64).optional() }),
    data: pageOf(ConfigEntry),
  }),
  add: defineCall({
    method: 'POST',
    path: '/v1/ksp/admin/config/add',
    summary: 'Add a configuration entry',
    tag: 'config',
    access: 'config:write',
    scope: 'system',
    body: z.object({
      key: ConfigKey,
      value: z.string().max(CONFIG_VALUE_MAX),
      public: z.boolean().default(false),
      description: z.string().trim().max(256).default(''),
    }),
    data: ConfigEntry,
  }),
  edit: defineCall({
    method: 'PUT',
    path: '/v1/ksp/admin/config/edit',
    summary: 'Change a configuration entry',
    tag: 'config',
    access: 'config:write',
    scope: 'system',
    body: z.object({
      id: Id,
      value: z.string().max(CONFIG_VALUE_MAX),
      public: z.boolean().optional(),
      description: z.string().trim().max(256).optional(),
    }),
    data: ConfigEntry,
  }),
  delete: defineCall({
    method: 'DELETE',
    path: '/v1/ksp/admin/config/delete',
    summary: 'Delete configuration entries (built-in ones cannot be deleted)',
    tag: 'config',
    access: 'config:write',
    scope: 'system',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  outlist: defineCall({
    method: 'GET',
    path: '/v1/ksp/admin/config/outlist',
    summary: 'Public configuration entries (version, title, logo, MFA)',
    tag: 'config',
    access: 'public',
    beforeInit: true,
    data: z.array(PublicConfigEntry),
  }),
  upload: defineCall({
    method: 'POST',
    path: '/v1/ksp/admin/config/upload',
    summary: 'Upload the logo (multipart field "file"; PNG, JPEG, WebP or SVG, at most 256 KB)',
    tag: 'config',
    access: 'config:write',
    scope: 'system',
    multipart: true,
    data: ConfigEntry,
  }),
};
