import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';
import { withKmip } from './key-fields.js';

/**
 * Credentials of the SMS sub-console (docs/modules.md#credentials): secrets the server keeps sealed under
 * the domain's KEK, version by version. The value is write-only: no call answers it but
 * `reveal` (a console user, who types their password again) and `value` (an application,
 * with its app token); both are audited.
 */
export const credentialTypes = [
  'password',
  'ssh-private-key',
  'api-key',
  'certificate-and-key',
  'key-value',
] as const;
export type CredentialType = (typeof credentialTypes)[number];

/** Bounds of a generated password (`credential/generate-password`). */
export const GENERATED_PASSWORD_MIN = 8;
export const GENERATED_PASSWORD_MAX = 128;
/** The characters of each class a generated password may draw from. */
export const passwordClasses = {
  lower: 'abcdefghijklmnopqrstuvwxyz',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  digits: '0123456789',
  symbols: '!#$%&()*+,-./:;<=>?@[]^_{|}~',
} as const;
/** How long the console shows a revealed value before hiding it again. */
export const REVEAL_SECONDS = 30;

export const CredentialTag = z.string().trim().min(1).max(32);
/** A credential's value as sent: at most 64 KiB of text (a PEM chain, a JSON object). */
export const CredentialValue = z.string().min(1).max(65536);

export const CredentialRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  type: z.enum(credentialTypes),
  server_id: z.string().nullable().describe('the linked server, if any'),
  expires_at: z.string().nullable(),
  expired: z.boolean().describe('expires_at has passed'),
  rotation_days: z.number().int().nullable().describe('the rotation period, in days'),
  current_version: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CredentialRow = z.infer<typeof CredentialRow>;

export const CredentialVersion = z.object({
  version: z.number().int(),
  current: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
});
export type CredentialVersion = z.infer<typeof CredentialVersion>;

/** A version's value as `reveal` and `value` answer it. */
const RevealedValue = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(credentialTypes),
  version: z.number().int(),
  value: z.string(),
});

const metadataShape = {
  name: objectName(64),
  description: z.string().trim().max(500),
  tags: z.array(CredentialTag).max(20),
  server_id: Id.nullable().describe('a linked server (the servers page links them), or null'),
  expires_at: z.iso
    .datetime({ offset: true })
    .nullable()
    .describe('when the value should no longer be used; null: never'),
  rotation_days: z.number().int().min(1).max(3650).nullable().describe('rotation period in days; null: none'),
};

export const credentialCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/list',
    summary: 'Credentials of the current domain (metadata only, never a value)',
    tag: 'credential',
    access: 'credential:read',
    tokens: withKmip(['session', 'sms']),
    query: PageQuery.extend({
      name: z.string().trim().max(64).optional().describe('part of the name'),
      type: z.enum(credentialTypes).optional(),
      tag: z.string().trim().max(32).optional().describe('credentials carrying this tag'),
    }),
    data: pageOf(CredentialRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/credential/detail',
    summary: "A credential's metadata and its versions (never a value)",
    tag: 'credential',
    access: 'credential:read',
    tokens: withKmip(['session', 'sms']),
    query: z.object({ id: Id }),
    data: CredentialRow.extend({ versions: z.array(CredentialVersion) }),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/create',
    summary:
      'Create a credential; its value (checked against its type) is sealed under the domain KEK as version 1',
    tag: 'credential',
    access: 'credential:write',
    tokens: withKmip(['session', 'sms']),
    changesAccess: false,
    body: z.object({
      ...metadataShape,
      description: metadataShape.description.default(''),
      tags: metadataShape.tags.default([]),
      server_id: metadataShape.server_id.default(null),
      expires_at: metadataShape.expires_at.default(null),
      rotation_days: metadataShape.rotation_days.default(null),
      type: z.enum(credentialTypes),
      value: CredentialValue.describe(
        'password / api-key: the text; ssh-private-key: a PEM private key; certificate-and-key: PEM certificate(s) and the matching PEM private key; key-value: a JSON object of strings',
      ),
    }),
    data: CredentialRow,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/update',
    summary:
      "Change a credential's metadata (name, description, tags, server, expiry, rotation); the value stays",
    tag: 'credential',
    access: 'credential:write',
    tokens: ['session', 'sms'],
    changesAccess: false,
    body: z.object(metadataShape).partial().extend({ id: Id }),
    data: CredentialRow,
  }),
  addVersion: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/add-version',
    summary: 'Store a new value as the next version (the older versions are kept)',
    tag: 'credential',
    access: 'credential:write',
    tokens: ['session', 'sms'],
    changesAccess: false,
    body: z.object({ id: Id, value: CredentialValue }),
    data: CredentialRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/delete',
    summary: 'Delete credentials with every version of their value (cannot be undone)',
    tag: 'credential',
    access: 'credential:write',
    tokens: withKmip(['session', 'sms']),
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  generatePassword: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/generate-password',
    summary:
      'A random password from a policy: its length and character classes, at least one character of each class chosen (not stored)',
    tag: 'credential',
    access: 'credential:write',
    tokens: ['session', 'sms'],
    changesAccess: false,
    body: z.object({
      length: z.number().int().min(GENERATED_PASSWORD_MIN).max(GENERATED_PASSWORD_MAX).default(20),
      lower: z.boolean().default(true),
      upper: z.boolean().default(true),
      digits: z.boolean().default(true),
      symbols: z.boolean().default(true),
    }),
    data: z.object({ password: z.string() }),
  }),
  reveal: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/reveal',
    summary:
      "A version's value (the current one by default), after the user's password typed again; audited, and a wrong password counts towards the sign-in lockout",
    tag: 'credential',
    access: 'credential:use',
    tokens: ['session', 'sms'],
    changesAccess: false,
    body: z.object({
      id: Id,
      version: z.number().int().min(1).optional(),
      password: z.string().min(1).max(128).describe("the user's own password, as typed"),
    }),
    data: RevealedValue,
  }),
  value: defineCall({
    method: 'POST',
    path: '/v1/ksp/credential/value',
    summary:
      "Applications: a credential's value (by id or by name; the current version by default) with an app token; audited",
    tag: 'credential',
    access: 'credential:use',
    tokens: withKmip(['app']),
    changesAccess: false,
    body: z
      .object({
        id: Id.optional(),
        name: z.string().trim().min(1).max(64).optional(),
        version: z.number().int().min(1).optional(),
      })
      .refine((b) => (b.id === undefined) !== (b.name === undefined), {
        message: 'give either id or name',
      }),
    data: RevealedValue,
  }),
};
