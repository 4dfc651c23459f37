import { LdapFields, type BodyOf, type api, type DataOf } from '@ksp/contracts';

export type LdapRow = DataOf<typeof api.ldap.list>['data'][number];
export type LdapBody = BodyOf<typeof api.ldap.create>;
export type LdapTestBody = BodyOf<typeof api.ldap.test>;
export type LdapTestResult = DataOf<typeof api.ldap.test>;
export type LdapStep = LdapTestResult['steps'][number]['step'];

/** The order the server runs the test in. */
export const ldapSteps: readonly LdapStep[] = ['connect', 'bind', 'find-user', 'bind-user', 'groups'];

/** What the connection form edits: every field of the contract. */
export interface LdapFormValues {
  name: string;
  url: string;
  bind_dn: string;
  bind_password: string;
  ca_certificate: string;
  verify_certificate: boolean;
  user_base_dn: string;
  username_attribute: string;
  user_dn_attribute: string;
  unique_id_attribute: string;
  user_filter: string;
  group_base_dn: string;
  group_filter: string;
  group_id_attribute: string;
  group_member_attribute: string;
  group_roles: { group?: string; role_id?: string }[];
}

/** The contract's defaults for a new connection (uid, entryUUID, groupOfNames/member…). */
export function newLdapValues(): LdapFormValues {
  const defaults = LdapFields.parse({ name: 'x', url: 'ldap://x', user_base_dn: 'x' });
  return { ...defaults, name: '', url: '', user_base_dn: '', bind_password: '' };
}

/** The form of a stored connection; the bind password is never returned, so it starts empty. */
export function ldapValuesOf(row: LdapRow): LdapFormValues {
  return {
    name: row.name,
    url: row.url,
    bind_dn: row.bind_dn,
    bind_password: '',
    ca_certificate: row.ca_certificate,
    verify_certificate: row.verify_certificate,
    user_base_dn: row.user_base_dn,
    username_attribute: row.username_attribute,
    user_dn_attribute: row.user_dn_attribute,
    unique_id_attribute: row.unique_id_attribute,
    user_filter: row.user_filter,
    group_base_dn: row.group_base_dn,
    group_filter: row.group_filter,
    group_id_attribute: row.group_id_attribute,
    group_member_attribute: row.group_member_attribute,
    group_roles: row.group_roles.map((m) => ({ ...m })),
  };
}

const trim = (value: string | undefined | null) => (value ?? '').trim();

/** The body of create/update; mapping rows left half-filled are dropped. */
export function ldapBody(values: LdapFormValues): LdapBody {
  return {
    name: trim(values.name),
    url: trim(values.url),
    bind_dn: trim(values.bind_dn),
    bind_password: values.bind_password ?? '',
    ca_certificate: (values.ca_certificate ?? '').trim() ? values.ca_certificate.trim() + '\n' : '',
    verify_certificate: values.verify_certificate,
    user_base_dn: trim(values.user_base_dn),
    username_attribute: trim(values.username_attribute),
    user_dn_attribute: trim(values.user_dn_attribute),
    unique_id_attribute: trim(values.unique_id_attribute),
    user_filter: trim(values.user_filter),
    group_base_dn: trim(values.group_base_dn),
    group_filter: trim(values.group_filter),
    group_id_attribute: trim(values.group_id_attribute),
    group_member_attribute: trim(values.group_member_attribute),
    group_roles: (values.group_roles ?? []).flatMap((m) =>
      trim(m.group) && m.role_id ? [{ group: trim(m.group), role_id: m.role_id }] : [],
    ),
  };
}

/**
 * The test of unsaved form values: with the id of a stored connection, an empty bind
 * password means the stored one (left out); the mapping plays no part in a test.
 */
export function ldapTestBody(
  values: LdapFormValues | null,
  id: string | undefined,
  username: string,
  password: string,
): LdapTestBody {
  const credentials = { test_username: username.trim(), test_password: password };
  if (!values) return { id, ...credentials };
  const { group_roles: _mapping, bind_password, ...fields } = ldapBody(values);
  return {
    ...(id ? { id } : {}),
    ...fields,
    ...(bind_password ? { bind_password } : {}),
    ...credentials,
  };
}
