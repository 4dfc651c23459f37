import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_BINARIES_MAX, api, Code } from '@ksp/contracts';
import { clientConfigEpoch } from '../../platform/agent-config.js';
import { agentKeyAndCsr } from '../../test/agent.js';
import { licenseEverything, testLicenseKeys } from '../../test/license.js';
import { call, domainWithAdmin, engines, login, ok, type TestServer } from '../../test/harness.js';
import { agentConfigOf, registrationToken, rootDomainId, signedInServer } from '../../test/fixtures.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(await engines())('TDE authorised binaries and client lock on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let rootDomain: string;
  let other: { domainId: string; token: string };
  const vendor = testLicenseKeys();
  const clients: Record<string, string> = {};
  let groupId: string;
  let sigSet: string;
  let foreignSigSet: string;
  let userSet: string;

  const enrol = async (secret: string, name: string, type: 'tde' | 'rdm') =>
    ok(
      await call(server, api.client.enrol, {
        body: {
          token: secret,
          csr: agentKeyAndCsr(name).csr,
          name,
          type,
          os: 'Linux 6.1',
          agent_version: '7.0',
          mac: '',
          host: `${name}.example`,
        },
      }),
    ).data.client_id;

  signedInServer(engine, (started) => ({ server, token } = started), {
    env: { KSP_LICENSE_TEST_PUBLIC_KEY: vendor.publicKeyBase64 },
  });
  beforeAll(async () => {
    await licenseEverything(server, token, vendor);
    rootDomain = await rootDomainId(server.database.db);
    other = await domainWithAdmin(server, token, {
      domain: 'tenant',
      username: 'tenant-admin',
      password: 'Tenant-Pass-1',
    });
    const tde = await registrationToken(server, token, 'cte-t', 'cte');
    const rdm = await registrationToken(server, token, 'rdm-t', 'rdm');
    clients.a = await enrol(tde.secret, 'auth-a', 'tde');
    clients.b = await enrol(tde.secret, 'auth-b', 'tde');
    clients.rdm = await enrol(rdm.secret, 'auth-rdm', 'rdm');
    sigSet = ok(
      await call(server, api.tdePolicy.elementCreate, {
        token,
        body: {
          kind: 'signature',
          name: 'login-binaries',
          signatures: [{ file_name: '/usr/sbin/sshd', hash_value: sha('sshd').toUpperCase() }],
        } as never,
      }),
    ).data.id;
    userSet = ok(
      await call(server, api.tdePolicy.elementCreate, {
        token,
        body: { kind: 'user', name: 'some-users', users: [{ uid: 1000 }] } as never,
      }),
    ).data.id;
    foreignSigSet = ok(
      await call(server, api.tdePolicy.elementCreate, {
        token: other.token,
        body: { kind: 'signature', name: 'tenant-sigs', signatures: [] } as never,
      }),
    ).data.id;
    groupId = ok(await call(server, api.tdeClient.groupCreate, { token, body: { name: 'logins' } })).data.id;
    ok(
      await call(server, api.tdeClient.groupAddMembers, {
        token,
        body: { id: groupId, client_ids: [clients.a] },
      }),
    );
  });

  const epoch = () => clientConfigEpoch(server.database.db, rootDomain);
  const configOf = (clientId: string) => agentConfigOf(server, clientId);
  const setOn = (target: { client_id?: string; group_id?: string }, entries: unknown[], as = token) =>
    call(server, api.tdeClient.authBinariesSet, { token: as, body: { ...target, entries } as never });

  it('sets and lists the authorised binaries of a client, raising the config epoch', async () => {
    const before = await epoch();
    const set = ok(
      await setOn({ client_id: clients.a! }, [
        { filename: '/usr/sbin/sshd/', privilege: 'authenticator', signature_set_id: sigSet },
        { filename: '/bin/su', privilege: 'authenticator_uid' },
      ]),
    ).data.data;
    expect(set).toEqual([
      {
        filename: '/usr/sbin/sshd',
        privilege: 'authenticator',
        signature_set_id: sigSet,
        signature_set_name: 'login-binaries',
        origin: { kind: 'client' },
      },
      {
        filename: '/bin/su',
        privilege: 'authenticator_uid',
        signature_set_id: null,
        signature_set_name: null,
        origin: { kind: 'client' },
      },
    ]);
    expect(await epoch()).toBe(before + 1);
    const listed = ok(
      await call(server, api.tdeClient.authBinaries, { token, query: { client_id: clients.a! } }),
    ).data.data;
    expect(listed.map((b) => b.filename)).toEqual(['/usr/sbin/sshd', '/bin/su']);
    const audit = await server.database.db
      .selectFrom('audit_log')
      .select(['target', 'result'])
      .where('action', '=', 'tde-client.auth-binaries.set')
      .where('result', '=', 'success')
      .execute();
    expect(audit).toContainEqual({ target: 'auth-a', result: 'success' });
    // Replacing with an empty list removes them.
    ok(await setOn({ client_id: clients.b! }, [{ filename: '/bin/login', privilege: 'authenticator' }]));
    ok(await setOn({ client_id: clients.b! }, []));
    expect(
      ok(await call(server, api.tdeClient.authBinaries, { token, query: { client_id: clients.b! } })).data
        .data,
    ).toEqual([]);
  });

  it('refuses bad entries with the field and the rule', async () => {
    const relative = await setOn({ client_id: clients.a! }, [
      { filename: 'bin/su', privilege: 'authenticator' },
    ]);
    expect(relative.code).toBe(Code.INVALID);
    expect(relative.msg).toContain('filename');
    const privilege = await setOn({ client_id: clients.a! }, [{ filename: '/bin/su', privilege: 'root' }]);
    expect(privilege.code).toBe(Code.INVALID);
    expect(privilege.msg).toContain('privilege');
    const duplicate = await setOn({ client_id: clients.a! }, [
      { filename: '/bin/su', privilege: 'authenticator' },
      { filename: '/bin/su/', privilege: 'authenticator_euid' },
    ]);
    expect(duplicate.code).toBe(Code.INVALID);
    expect(duplicate.msg).toContain('entries[1].filename');
    expect(duplicate.msg).toContain('twice');
    const tooMany = await setOn(
      { client_id: clients.a! },
      Array.from({ length: AUTH_BINARIES_MAX + 1 }, (_, i) => ({
        filename: `/bin/p${i}`,
        privilege: 'authenticator',
      })),
    );
    expect(tooMany.code).toBe(Code.INVALID);
    expect(tooMany.msg).toContain('entries');
    for (const id of [foreignSigSet, userSet]) {
      const foreign = await setOn({ client_id: clients.a! }, [
        { filename: '/bin/su', privilege: 'authenticator', signature_set_id: id },
      ]);
      expect(foreign.code).toBe(Code.NOT_FOUND);
      expect(foreign.msg).toContain('entries[0].signature_set_id');
    }
    const both = await setOn({ client_id: clients.a!, group_id: groupId }, []);
    expect(both.code).toBe(Code.INVALID);
    // Nothing changed by the refusals.
    expect(
      ok(await call(server, api.tdeClient.authBinaries, { token, query: { client_id: clients.a! } })).data
        .data,
    ).toHaveLength(2);
    // In Chinese too.
    const zh = await call(server, api.tdeClient.authBinariesSet, {
      token,
      lang: 'zh-CN',
      body: {
        client_id: clients.a!,
        entries: [
          { filename: '/bin/su', privilege: 'authenticator' },
          { filename: '/bin/su', privilege: 'authenticator' },
        ],
      },
    });
    expect(zh.msg).toContain('entries[1].filename');
    expect(zh.msg).toContain('重复');
  });

  it("gives a group's binaries to its members, with the group as origin, in the agent config", async () => {
    const before = await epoch();
    ok(await setOn({ group_id: groupId }, [{ filename: '/usr/bin/sudo', privilege: 'authenticator_euid' }]));
    expect(await epoch()).toBe(before + 1);
    const listed = ok(
      await call(server, api.tdeClient.authBinaries, { token, query: { client_id: clients.a! } }),
    ).data.data;
    expect(listed.map((b) => [b.filename, b.origin.kind])).toEqual([
      ['/usr/sbin/sshd', 'client'],
      ['/bin/su', 'client'],
      ['/usr/bin/sudo', 'group'],
    ]);
    expect(listed[2]!.origin).toEqual({ kind: 'group', id: groupId, name: 'logins' });
    const ofGroup = ok(
      await call(server, api.tdeClient.authBinaries, { token, query: { group_id: groupId } }),
    ).data.data;
    expect(ofGroup.map((b) => b.filename)).toEqual(['/usr/bin/sudo']);
    const config = await configOf(clients.a!);
    expect(config.auth_binaries).toEqual([
      {
        filename: '/usr/sbin/sshd',
        privilege: 'authenticator',
        sha256: [sha('sshd')],
        origin: { kind: 'client' },
      },
      { filename: '/bin/su', privilege: 'authenticator_uid', origin: { kind: 'client' } },
      {
        filename: '/usr/bin/sudo',
        privilege: 'authenticator_euid',
        origin: { kind: 'group', id: groupId, name: 'logins' },
      },
    ]);
    expect(config.client_locked).toBe(false);
    // A client outside the group does not receive them.
    expect((await configOf(clients.b!)).auth_binaries).toEqual([]);
  });

  it('locks and unlocks a client: tag in list and detail, config epoch, audit, agent config', async () => {
    const before = await epoch();
    const locked = ok(
      await call(server, api.tdeClient.lock, { token, body: { id: clients.b!, locked: true } }),
    ).data;
    expect(locked.client_locked).toBe(true);
    expect(await epoch()).toBe(before + 1);
    expect((await configOf(clients.b!)).client_locked).toBe(true);
    const list = ok(await call(server, api.tdeClient.list, { token, query: {} })).data.data;
    expect(list.find((c) => c.id === clients.b)?.client_locked).toBe(true);
    expect(list.find((c) => c.id === clients.a)?.client_locked).toBe(false);
    ok(await call(server, api.tdeClient.lock, { token, body: { id: clients.b!, locked: false } }));
    expect(
      ok(await call(server, api.tdeClient.detail, { token, query: { id: clients.b! } })).data.client_locked,
    ).toBe(false);
    expect(await epoch()).toBe(before + 2);
    const actions = await server.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'in', ['tde-client.lock', 'tde-client.unlock'])
      .where('result', '=', 'success')
      .execute();
    expect(actions.map((a) => a.action)).toEqual(['tde-client.lock', 'tde-client.unlock']);
    // An RDM client is not a TDE client: not found.
    expect(
      (await call(server, api.tdeClient.lock, { token, body: { id: clients.rdm!, locked: true } })).code,
    ).toBe(Code.NOT_FOUND);
  });

  it("another domain's user gets 4040; the sub-console tokens and roles apply", async () => {
    expect(
      (await call(server, api.tdeClient.lock, { token: other.token, body: { id: clients.a!, locked: true } }))
        .code,
    ).toBe(Code.NOT_FOUND);
    expect(
      (
        await call(server, api.tdeClient.authBinaries, {
          token: other.token,
          query: { client_id: clients.a! },
        })
      ).code,
    ).toBe(Code.NOT_FOUND);
    expect((await setOn({ group_id: groupId }, [], other.token)).code).toBe(Code.NOT_FOUND);
    const session = await login(server, 'admin', 'Admin-Pass-1');
    const cte = ok(await call(server, api.user.tdeToken, { token: session })).data.token;
    const rdm = ok(await call(server, api.user.rdmToken, { token: session })).data.token;
    expect(
      (await call(server, api.tdeClient.authBinaries, { token: cte, query: { client_id: clients.a! } })).code,
    ).toBe(0);
    ok(await call(server, api.tdeClient.lock, { token: cte, body: { id: clients.a!, locked: false } }));
    expect(
      (await call(server, api.tdeClient.authBinaries, { token: rdm, query: { client_id: clients.a! } })).code,
    ).toBe(Code.FORBIDDEN);
    expect((await setOn({ client_id: clients.a! }, [], rdm)).code).toBe(Code.FORBIDDEN);
  });

  it('deleting a group removes its binaries from its former members', async () => {
    ok(await call(server, api.tdeClient.groupDelete, { token, body: { id: groupId } }));
    expect((await configOf(clients.a!)).auth_binaries?.map((b) => b.filename)).toEqual([
      '/usr/sbin/sshd',
      '/bin/su',
    ]);
  });
});
