import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { ADMIN_DN, ADMIN_PW, BASE_DN, slapdAvailable, startSlapd, type Slapd } from '../../test/slapd.js';

if (!slapdAvailable()) {
  if (process.env.CI === 'true')
    throw new Error('slapd is required in CI (Debian packages slapd and ldap-utils)');
  console.warn(
    '\n!!! /usr/sbin/slapd not installed: LDAP suite cannot run (apt-get install slapd ldap-utils) !!!\n',
  );
}

describe.runIf(slapdAvailable()).each(await engines())(
  'LDAP connections against a real slapd, on %s',
  (engine) => {
    let slapd: Slapd;
    let server: TestServer;
    let token: string;
    let roleIds: Record<string, string>;

    beforeAll(async () => {
      slapd = await startSlapd();
    });
    afterAll(async () => slapd?.stop());
    signedInServer(engine, (started) => ({ server, token } = started), { each: true });
    beforeEach(async () => {
      const roles = await call(server, api.role.list, { token, query: { page: 1, page_size: 20 } });
      roleIds = Object.fromEntries(roles.data.data.map((r) => [r.name, r.id]));
    });

    const fields = (url: string, extra: Record<string, unknown> = {}) => ({
      name: 'corp',
      url,
      bind_dn: ADMIN_DN,
      bind_password: ADMIN_PW,
      user_base_dn: `ou=people,${BASE_DN}`,
      username_attribute: 'uid',
      user_filter: '(objectClass=inetOrgPerson)',
      group_base_dn: `ou=groups,${BASE_DN}`,
      group_filter: '(objectClass=groupOfNames)',
      group_id_attribute: 'cn',
      group_member_attribute: 'member',
      group_roles: [
        { group: 'kms-admins', role_id: roleIds.Administrator! },
        { group: 'kms-auditors', role_id: roleIds.Auditor! },
      ],
      ...extra,
    });

    it('stores a connection without ever returning or storing the bind password in clear', async () => {
      const created = await call(server, api.ldap.create, { token, body: fields(slapd.ldapUrl) });
      expect(created.code).toBe(0);
      expect(created.data).toMatchObject({ name: 'corp', has_bind_password: true, verify_certificate: true });
      expect(JSON.stringify(created.data)).not.toContain(ADMIN_PW);
      const row = await server.database.db
        .selectFrom('ldap_connection')
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(ADMIN_PW);
      const dup = await call(server, api.ldap.create, { token, body: fields(slapd.ldapUrl) });
      expect(dup.code).toBe(Code.CONFLICT);
      const badUrl = await call(server, api.ldap.create, {
        token,
        body: fields('http://example.test', { name: 'x' }),
      });
      expect(badUrl).toMatchObject({ code: Code.INVALID, msg: 'url: has characters that are not allowed' });
    });

    it('tests a connection step by step and names the failing step with the LDAP error', async () => {
      const created = await call(server, api.ldap.create, { token, body: fields(slapd.ldapUrl) });
      const ok = await call(server, api.ldap.test, {
        token,
        body: { id: created.data.id, test_username: 'alice', test_password: 'alice-pw-1' },
      });
      expect(ok.data.ok).toBe(true);
      expect(ok.data.steps.map((s) => s.step)).toEqual([
        'connect',
        'bind',
        'find-user',
        'bind-user',
        'groups',
      ]);
      expect(ok.data.groups).toEqual(['kms-admins', 'kms-auditors']);

      const wrongUserPw = await call(server, api.ldap.test, {
        token,
        body: { id: created.data.id, test_username: 'alice', test_password: 'nope' },
      });
      expect(wrongUserPw.data.ok).toBe(false);
      expect(wrongUserPw.data.steps.at(-1)).toMatchObject({ step: 'bind-user', ok: false });
      expect(wrongUserPw.data.steps.at(-1)?.detail).toMatch(/InvalidCredentials/);

      const noUser = await call(server, api.ldap.test, {
        token,
        body: { id: created.data.id, test_username: 'mallory*', test_password: 'x' },
      });
      expect(noUser.data.steps.at(-1)).toMatchObject({ step: 'find-user', ok: false });
      expect(noUser.data.steps.at(-1)?.detail).toContain('mallory\\2a');

      const badBind = await call(server, api.ldap.test, {
        token,
        body: {
          id: created.data.id,
          bind_password: 'wrong',
          test_username: 'alice',
          test_password: 'alice-pw-1',
        },
      });
      expect(badBind.data.steps.at(-1)).toMatchObject({ step: 'bind', ok: false });

      const closedPort = await call(server, api.ldap.test, {
        token,
        body: {
          url: 'ldap://127.0.0.1:1',
          user_base_dn: BASE_DN,
          test_username: 'alice',
          test_password: 'x',
        },
      });
      expect(closedPort.data.steps).toHaveLength(1);
      expect(closedPort.data.steps[0]).toMatchObject({ step: 'connect', ok: false });
      expect(closedPort.data.steps[0]?.detail).toMatch(/ECONNREFUSED/);
    });

    it('verifies the directory certificate over ldaps:// with the given CA, and refuses an unknown one', async () => {
      const trusted = await call(server, api.ldap.create, {
        token,
        body: fields(slapd.ldapsUrl, { ca_certificate: slapd.caPem }),
      });
      const ok = await call(server, api.ldap.test, {
        token,
        body: { id: trusted.data.id, test_username: 'bob', test_password: 'bob-pw-1' },
      });
      expect(ok.data.ok).toBe(true);
      expect(ok.data.groups).toEqual(['kms-auditors']);

      const untrusted = await call(server, api.ldap.create, {
        token,
        body: fields(slapd.ldapsUrl, { name: 'corp-untrusted' }),
      });
      const refused = await call(server, api.ldap.test, {
        token,
        body: { id: untrusted.data.id, test_username: 'bob', test_password: 'bob-pw-1' },
      });
      expect(refused.data.steps[0]).toMatchObject({ step: 'connect', ok: false });
      expect(refused.data.steps[0]?.detail).toMatch(/certificate/i);

      const unchecked = await call(server, api.ldap.update, {
        token,
        body: { id: untrusted.data.id, verify_certificate: false },
      });
      expect(unchecked.data.verify_certificate).toBe(false);
      const loose = await call(server, api.ldap.test, {
        token,
        body: { id: untrusted.data.id, test_username: 'bob', test_password: 'bob-pw-1' },
      });
      expect(loose.data.ok).toBe(true);
    });

    it('signs directory users in as <connection>/<user> with the roles of their groups', async () => {
      await call(server, api.ldap.create, { token, body: fields(slapd.ldapUrl) });
      const alice = await call(server, api.user.login, {
        body: { username: 'corp/alice', password: 'alice-pw-1' },
      });
      expect(alice.code).toBe(0);
      expect(alice.data.userinfo).toMatchObject({ name: 'corp/alice', directory: 'corp', domain: 'root' });
      expect(alice.data.userinfo.roles.sort()).toEqual(['Administrator', 'Auditor']);
      const bob = await call(server, api.user.login, {
        body: { username: ' corp/bob ', password: 'bob-pw-1' },
      });
      expect(bob.data.userinfo.roles).toEqual(['Auditor']);
      const denied = await call(server, api.config.add, {
        token: bob.data.token,
        body: { key: 'x', value: 'y' },
      });
      expect(denied.code).toBe(Code.FORBIDDEN);

      const wrong = await call(server, api.user.login, {
        body: { username: 'corp/alice', password: 'nope' },
      });
      expect(wrong).toMatchObject({ code: Code.BAD_CREDENTIALS, msg: 'Incorrect username or password' });
      const carol = await call(server, api.user.login, {
        body: { username: 'corp/carol', password: 'carol-pw-1' },
      });
      expect(carol.code).toBe(Code.BAD_CREDENTIALS); // in no mapped group
      const unknownDir = await call(server, api.user.login, {
        body: { username: 'other/alice', password: 'alice-pw-1' },
      });
      expect(unknownDir.code).toBe(Code.BAD_CREDENTIALS);
      const pw = await call(server, api.user.updateMyPassword, {
        token: alice.data.token,
        body: { old_password: 'alice-pw-1', new_password: 'Another-pw-1' },
      });
      expect(pw.code).toBe(Code.STATE_FORBIDS);
    });
  },
);
