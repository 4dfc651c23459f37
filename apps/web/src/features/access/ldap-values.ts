import {
  ldapFieldNames,
  newLdapFields,
  type BodyOf,
  type api,
  type DataOf,
  type LdapFieldName,
  type LdapFieldValues,
} from '@ksp/contracts';

export type LdapRow = DataOf<typeof api.ldap.list>['data'][number];
export type LdapBody = BodyOf<typeof api.ldap.create>;
export type LdapTestBody = BodyOf<typeof api.ldap.test>;
export type LdapTestResult = DataOf<typeof api.ldap.test>;
export type LdapStep = LdapTestResult['steps'][number]['step'];

/** The order the server runs the test in. */
export const ldapSteps: readonly LdapStep[] = ['connect', 'bind', 'find-user', 'bind-user', 'groups'];

/** What the connection form edits: every field of the contract (mapping rows may be half-filled). */
export type LdapFormValues = Omit<LdapFieldValues, 'group_roles'> & {
  group_roles: { group?: string; role_id?: string }[];
};

/** The contract's defaults for a new connection (uid, entryUUID, groupOfNames/member…). */
export function newLdapValues(): LdapFormValues {
  return newLdapFields();
}

/** The form of a stored connection; the bind password is never returned, so it starts empty. */
export function ldapValuesOf(row: LdapRow): LdapFormValues {
  const { id: _id, has_bind_password: _has, created_at: _created, updated_at: _updated, ...fields } = row;
  return { ...fields, bind_password: '', group_roles: row.group_roles.map((m) => ({ ...m })) };
}

const trim = (value: string | undefined | null) => (value ?? '').trim();

/** The body of create/update: every text field trimmed; mapping rows left half-filled are dropped. */
export function ldapBody(values: LdapFormValues): LdapBody {
  const texts = Object.fromEntries(
    ldapFieldNames
      .filter((name) => name !== 'verify_certificate' && name !== 'group_roles')
      .map((name) => [name, trim(values[name] as string | undefined)]),
  ) as Record<LdapFieldName, string>;
  return {
    ...texts,
    bind_password: values.bind_password ?? '',
    ca_certificate: texts.ca_certificate ? texts.ca_certificate + '\n' : '',
    verify_certificate: values.verify_certificate,
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
