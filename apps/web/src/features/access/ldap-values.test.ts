import { describe, expect, it } from 'vitest';
import { ldapBody, ldapTestBody, ldapValuesOf, newLdapValues, type LdapRow } from './ldap-values';

const ROLE = '3f2b9c1e-7a4d-4e2b-9b1a-0c5d6e7f8a90';

const stored: LdapRow = {
  id: '7d7f2c7e-0c1a-4b8e-9a53-0f6f1f3f0a11',
  name: 'corp',
  url: 'ldaps://dir.example:636',
  bind_dn: 'cn=svc,dc=example',
  has_bind_password: true,
  user_base_dn: 'ou=people,dc=example',
  username_attribute: 'uid',
  user_dn_attribute: 'dn',
  unique_id_attribute: 'entryUUID',
  user_filter: '(objectClass=person)',
  group_base_dn: 'ou=groups,dc=example',
  group_filter: '(objectClass=groupOfNames)',
  group_id_attribute: 'cn',
  group_member_attribute: 'member',
  ca_certificate: '',
  verify_certificate: true,
  group_roles: [{ group: 'kms-admins', role_id: ROLE }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};

describe('the LDAP connection form values', () => {
  it('start from the contract defaults', () => {
    expect(newLdapValues()).toMatchObject({
      name: '',
      url: '',
      user_base_dn: '',
      bind_password: '',
      username_attribute: 'uid',
      user_dn_attribute: 'dn',
      unique_id_attribute: 'entryUUID',
      user_filter: '(objectClass=person)',
      group_filter: '(objectClass=groupOfNames)',
      group_id_attribute: 'cn',
      group_member_attribute: 'member',
      verify_certificate: true,
      group_roles: [],
    });
  });

  it('of a stored connection leave the (never returned) bind password empty', () => {
    const values = ldapValuesOf(stored);
    expect(values.bind_password).toBe('');
    expect(values.group_roles).toEqual([{ group: 'kms-admins', role_id: ROLE }]);
  });

  it('trim into a body and drop half-filled mapping rows', () => {
    const body = ldapBody({
      ...ldapValuesOf(stored),
      name: ' corp ',
      ca_certificate: '  -----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----  ',
      group_roles: [
        { group: ' kms-admins ', role_id: ROLE },
        { group: 'x' },
        { role_id: ROLE },
        { group: '  ', role_id: ROLE },
      ],
    });
    expect(body.name).toBe('corp');
    expect(body.ca_certificate).toBe('-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n');
    expect(body.group_roles).toEqual([{ group: 'kms-admins', role_id: ROLE }]);
  });

  it('test a stored connection by id, unsaved values over it, an empty password meaning the stored one', () => {
    expect(ldapTestBody(null, stored.id, ' alice ', 'pw')).toEqual({
      id: stored.id,
      test_username: 'alice',
      test_password: 'pw',
    });
    const overStored = ldapTestBody(
      { ...ldapValuesOf(stored), url: 'ldap://other:389' },
      stored.id,
      'alice',
      'pw',
    );
    expect(overStored).toMatchObject({ id: stored.id, url: 'ldap://other:389', test_username: 'alice' });
    expect(overStored).not.toHaveProperty('bind_password');
    expect(overStored).not.toHaveProperty('group_roles');
    const unsaved = ldapTestBody(
      { ...newLdapValues(), url: 'ldap://x', user_base_dn: 'dc=x', bind_password: 's' },
      undefined,
      'a',
      '',
    );
    expect(unsaved).not.toHaveProperty('id');
    expect(unsaved).toMatchObject({ bind_password: 's', url: 'ldap://x', user_base_dn: 'dc=x' });
  });
});
