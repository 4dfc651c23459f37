import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';

const ConnectionName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/);
const Dn = z.string().trim().max(512);
const Attr = z.string().trim().max(64);

const GroupRoles = z.array(z.object({ group: z.string().trim().min(1).max(256), role_id: Id })).max(200);

/** Every field, none defaulted: the base of create (with defaults) and of partial updates. */
const ldapShape = {
  name: ConnectionName,
  url: z
    .string()
    .trim()
    .max(512)
    .regex(/^ldaps?:\/\/[^\s/]+(:\d{1,5})?\/?$/i),
  bind_dn: Dn,
  /** Write-only: never returned. Empty on update keeps the stored one. */
  bind_password: z.string().max(256),
  user_base_dn: Dn.min(1),
  username_attribute: Attr.min(1),
  user_dn_attribute: Attr,
  unique_id_attribute: Attr,
  user_filter: z.string().trim().max(512),
  group_base_dn: Dn,
  group_filter: z.string().trim().max(512),
  group_id_attribute: Attr,
  group_member_attribute: Attr,
  /** PEM CA certificate(s) to trust for ldaps://. */
  ca_certificate: z.string().max(65536),
  verify_certificate: z.boolean(),
  /** Directory group → role; a directory user gets the roles of its groups. */
  group_roles: GroupRoles,
};

export const LdapFields = z.object({
  ...ldapShape,
  bind_dn: ldapShape.bind_dn.default(''),
  bind_password: ldapShape.bind_password.default(''),
  username_attribute: ldapShape.username_attribute.default('uid'),
  user_dn_attribute: ldapShape.user_dn_attribute.default('dn'),
  unique_id_attribute: ldapShape.unique_id_attribute.default('entryUUID'),
  user_filter: ldapShape.user_filter.default('(objectClass=person)'),
  group_base_dn: ldapShape.group_base_dn.default(''),
  group_filter: ldapShape.group_filter.default('(objectClass=groupOfNames)'),
  group_id_attribute: ldapShape.group_id_attribute.default('cn'),
  group_member_attribute: ldapShape.group_member_attribute.default('member'),
  ca_certificate: ldapShape.ca_certificate.default(''),
  verify_certificate: ldapShape.verify_certificate.default(true),
  group_roles: GroupRoles.default([]),
});
const LdapPatch = z.object(ldapShape).partial();

/** The fields of a connection: the server, the console and the directory client share this list. */
export type LdapFieldName = keyof typeof ldapShape;
export const ldapFieldNames = Object.keys(ldapShape) as LdapFieldName[];
/** A connection's fields as the server receives them (defaults applied). */
export type LdapFieldValues = z.output<typeof LdapFields>;
/** The fields the directory conversation reads (the rest name and map the connection). */
export type DirectoryFieldName = Exclude<LdapFieldName, 'name' | 'unique_id_attribute' | 'group_roles'>;
export type DirectorySettings = Pick<LdapFieldValues, DirectoryFieldName>;

/** A new connection: every default of the contract, the required fields empty. */
export function newLdapFields(): LdapFieldValues {
  const defaults = LdapFields.parse({ name: 'x', url: 'ldap://x', user_base_dn: 'x' });
  return { ...defaults, name: '', url: '', user_base_dn: '' };
}

export const LdapConnection = z.object(ldapShape).omit({ bind_password: true }).extend({
  id: z.string(),
  has_bind_password: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const LdapTestStep = z.object({
  step: z.enum(['connect', 'bind', 'find-user', 'bind-user', 'groups']),
  ok: z.boolean(),
  ms: z.number().int(),
  detail: z.string(),
});

export const ldapCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/ldap/list',
    summary: 'LDAP connections',
    tag: 'ldap',
    access: 'ldap:read',
    scope: 'system',
    query: PageQuery.extend({ name: z.string().trim().max(64).optional() }),
    data: pageOf(LdapConnection),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/ldap/create',
    summary: 'Add an LDAP connection (the bind password is stored encrypted)',
    tag: 'ldap',
    access: 'ldap:write',
    scope: 'system',
    body: LdapFields,
    data: LdapConnection,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/ldap/update',
    summary: 'Change an LDAP connection (an empty bind password keeps the stored one)',
    tag: 'ldap',
    access: 'ldap:write',
    scope: 'system',
    body: LdapPatch.extend({ id: Id }),
    data: LdapConnection,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/ldap/delete',
    summary: 'Delete LDAP connections',
    tag: 'ldap',
    access: 'ldap:write',
    scope: 'system',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  test: defineCall({
    method: 'POST',
    path: '/v1/ksp/ldap/test',
    summary: 'Try a connection step by step: connect, bind, find the test user, bind as it, list its groups',
    tag: 'ldap',
    access: 'ldap:write',
    scope: 'system',
    body: LdapPatch.extend({
      id: Id.optional(),
      test_username: z.string().trim().min(1).max(256),
      test_password: z.string().max(256),
    }).refine((b) => b.id || (b.url && b.user_base_dn), {
      message: 'give id, or url and user_base_dn',
      path: ['id'],
    }),
    data: z.object({ ok: z.boolean(), steps: z.array(LdapTestStep), groups: z.array(z.string()) }),
  }),
};
