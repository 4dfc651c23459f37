import {
  constants,
  createDecipheriv,
  createHash,
  sign,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  privateDecrypt,
  randomUUID,
  type KeyObject,
  generateKeyPairSync,
} from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  Code,
  RDM_SUSPICIOUS_ACTION,
  signedText,
  Usage,
  type AgentKey,
  type AgentPolicy,
} from '@ksp/contracts';
import { clientConfigEpoch } from '../../platform/agent-config.js';
import { agentKeyAndCsr, until } from '../../test/agent.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';
import { call, engines, ok, type TestServer } from '../../test/harness.js';
import { agentConfigOf, registrationToken, rootDomainId, tenantAndAuditor } from '../../test/fixtures.js';
import { AGENT_KEY_WRAP_INFO } from './agent-keys.js';
import { createTestPolicies } from './test-policies.js';
import { createTdeClientService } from './tde-client.service.js';

/** Opens an AgentKey with the agent's private key, as contracts/agent.ts documents. */
function unwrapAgentKey(key: AgentKey, privateKey: KeyObject): Buffer {
  if (key.alg === 'RSA-OAEP-256')
    return privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(key.wrapped, 'base64'),
    );
  const epk = createPublicKey({ key: Buffer.from(key.epk!, 'base64'), format: 'der', type: 'spki' });
  const shared = diffieHellman({ privateKey, publicKey: epk });
  const kek = Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), AGENT_KEY_WRAP_INFO, 32));
  const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(key.iv!, 'base64'));
  decipher.setAAD(Buffer.from(`${key.id}:${key.version}`, 'utf8'));
  decipher.setAuthTag(Buffer.from(key.tag!, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(key.wrapped, 'base64')), decipher.final()]);
}

const policy = (
  id: string,
  name: string,
  type: AgentPolicy['type'],
  keyId: string | null = null,
): AgentPolicy => ({
  id,
  name,
  type,
  learn_mode: false,
  revision: 1,
  security_rules: [{ order: 1, actions: ['all_ops'], effects: ['permit', 'applykey'] }],
  key_rules: type === 'standard' ? [{ order: 1, key_id: keyId }] : [],
  ...(type === 'rdm'
    ? { rdm: { mode: 'block' as const, trusted_processes: [], threshold: { files: 50, window_s: 10 } } }
    : {}),
});

describe.each(await engines())('TDE and RDM clients on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let rootDomain: string;
  let other: { domainId: string; token: string };
  let auditor: string;
  const vendor = testLicenseKeys();
  const policies = createTestPolicies();
  const ecAgent = agentKeyAndCsr('tde-ec');
  const rsaAgent = agentKeyAndCsr('tde-rsa', ['-newkey', 'rsa:2048']);
  const rdmAgent = agentKeyAndCsr('rdm-a');
  const exportWrap = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ids = {
    std: randomUUID(),
    std2: randomUUID(),
    rdm: randomUUID(),
    foreign: randomUUID(),
  };
  let keyId: string;
  const clients: Record<string, string> = {};

  const enrol = async (secret: string, name: string, type: 'tde' | 'rdm', csr: string, os = 'Linux 6.1') =>
    ok(
      await call(server, api.client.enrol, {
        body: { token: secret, csr, name, type, os, agent_version: '7.0', mac: '', host: `${name}.example` },
      }),
    ).data.client_id;

  beforeAll(async () => {
    ({ server, token } = await licensedServer(engine, vendor, {
      services: { tdePolicies: policies.catalog },
    }));
    rootDomain = await rootDomainId(server.database.db);
    ({ other, auditor } = await tenantAndAuditor(server, token));
    const key = ok(
      await call(server, api.key.create, {
        token,
        body: {
          name: 'tde-key',
          algorithm: 'AES-256',
          usage_mask: Usage.Encrypt | Usage.Decrypt,
          exportable: true,
        },
      }),
    ).data;
    keyId = key.id;
    policies.addPolicy(rootDomain, policy(ids.std, 'encrypt-data', 'standard', keyId));
    policies.addPolicy(rootDomain, policy(ids.std2, 'audit-only', 'standard', null));
    policies.addPolicy(rootDomain, policy(ids.rdm, 'ransomware', 'rdm'));
    policies.addPolicy(other.domainId, policy(ids.foreign, 'tenant-policy', 'standard'));
    policies.addProfile(rootDomain, { name: 'verbose', log_threshold: 'DEBUG' });
    policies.addProfile(rootDomain, { name: 'group-profile', log_threshold: 'WARN' });
    policies.addProfile(other.domainId, { name: 'tenant-profile' });

    const tde = await registrationToken(server, token, 'cte-t', 'cte');
    const rdm = await registrationToken(server, token, 'rdm-t', 'rdm');
    const tenantTde = await registrationToken(server, other.token, 'tenant-cte', 'cte');
    clients.ec = await enrol(tde.secret, 'tde-ec', 'tde', ecAgent.csr);
    clients.rsa = await enrol(tde.secret, 'tde-rsa', 'tde', rsaAgent.csr, 'Windows Server 2022');
    clients.rdm = await enrol(rdm.secret, 'rdm-a', 'rdm', rdmAgent.csr);
    clients.tenant = await enrol(tenantTde.secret, 'tenant-agent', 'tde', agentKeyAndCsr('tenant').csr);
  });
  afterAll(async () => {
    await server?.close();
  });

  const epoch = () => clientConfigEpoch(server.database.db, rootDomain);
  const configOf = (clientId: string) => agentConfigOf(server, clientId);
  const failures = async (action: string) =>
    (
      await server.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', action)
        .where('result', '=', 'failure')
        .execute()
    ).map((r) => r.details ?? '');

  it('lists only the clients of each sub-console and domain, with filters and the status bar', async () => {
    const tde = ok(await call(server, api.tdeClient.list, { token, query: {} })).data;
    expect(tde.data.map((c) => c.name).sort()).toEqual(['tde-ec', 'tde-rsa']);
    expect(tde.counts).toMatchObject({ total: 2, healthy: 2 });
    expect(tde.data[0]).toMatchObject({ type: 'tde', guard_points: 0, group_names: [] });
    const rdm = ok(await call(server, api.rdmClient.list, { token, query: {} })).data;
    expect(rdm.data.map((c) => c.name)).toEqual(['rdm-a']);
    expect(rdm.data[0]).toMatchObject({ protection_mode: 'none', suspicious_24h: 0 });
    const byOs = ok(await call(server, api.tdeClient.list, { token, query: { os: 'windows' } })).data;
    expect(byOs.data.map((c) => c.name)).toEqual(['tde-rsa']);
    const byName = ok(await call(server, api.tdeClient.list, { token, query: { name: 'ec.example' } })).data;
    expect(byName.data.map((c) => c.name)).toEqual(['tde-ec']);
    // Another type or another domain's client is "not found"; the tenant sees only its own.
    expect((await call(server, api.rdmClient.detail, { token, query: { id: clients.ec! } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect((await call(server, api.tdeClient.detail, { token, query: { id: clients.tenant! } })).code).toBe(
      Code.NOT_FOUND,
    );
    const tenant = ok(await call(server, api.tdeClient.list, { token: other.token, query: {} })).data;
    expect(tenant.data.map((c) => c.name)).toEqual(['tenant-agent']);
    // The auditor reads but may not change.
    ok(await call(server, api.tdeClient.detail, { token: auditor, query: { id: clients.ec! } }));
    expect(
      (
        await call(server, api.tdeClient.setProfile, {
          token: auditor,
          body: { id: clients.ec!, profile: null },
        })
      ).code,
    ).toBe(Code.FORBIDDEN);
  });

  it('assigns a profile by name (checked in the domain), raising the config epoch', async () => {
    const before = await epoch();
    const unknown = await call(server, api.tdeClient.setProfile, {
      token,
      body: { id: clients.ec!, profile: 'tenant-profile' },
    });
    expect(unknown.code).toBe(Code.INVALID);
    expect(unknown.msg).toContain('profile');
    expect((await failures('tde-client.set-profile')).join(' ')).toContain('tdeClient.profileNotFound');
    const set = ok(
      await call(server, api.tdeClient.setProfile, { token, body: { id: clients.ec!, profile: 'verbose' } }),
    ).data;
    expect(set.profile).toBe('verbose');
    expect(await epoch()).toBe(before + 1);
    expect((await configOf(clients.ec!)).profile).toMatchObject({ name: 'verbose', log_threshold: 'DEBUG' });
    expect(
      (
        await call(server, api.tdeClient.setProfile, {
          token: other.token,
          body: { id: clients.ec!, profile: null },
        })
      ).code,
    ).toBe(Code.NOT_FOUND);
  });

  it("disables and enables communication: the agent's heartbeats are refused meanwhile", async () => {
    const heartbeat = (ts: number) => {
      const payload = JSON.stringify({});
      const digest = createHash('sha256').update(payload).digest('hex');
      const signature = sign(
        'sha256',
        Buffer.from(signedText(clients.rdm!, ts, digest)),
        rdmAgent.key,
      ).toString('base64');
      return call(server, api.client.heartbeat, {
        body: { client_id: clients.rdm!, timestamp: ts, payload, signature },
      });
    };
    // The RDM client's communication, through a sub-console's call, by a caller.
    const setCommunication = (calls: typeof api.rdmClient, caller: string, enabled: boolean) =>
      call(server, calls.setCommunication, { token: caller, body: { id: clients.rdm!, enabled } });
    const now = server.clock.now.getTime();
    ok(await heartbeat(now));
    const off = ok(await setCommunication(api.rdmClient, token, false)).data;
    expect(off.communication_enabled).toBe(false);
    const refused = await heartbeat(now + 1);
    expect(refused.code).toBe(Code.BAD_CREDENTIALS);
    expect(refused.msg).toContain('communication');
    expect((await setCommunication(api.tdeClient, token, true)).code).toBe(Code.NOT_FOUND);
    expect((await setCommunication(api.rdmClient, other.token, true)).code).toBe(Code.NOT_FOUND);
    ok(await setCommunication(api.rdmClient, token, true));
    ok(await heartbeat(now + 2));
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'rdm-client.%-communication')
      .where('result', '=', 'success')
      .execute();
    expect(audited.map((a) => a.action)).toEqual([
      'rdm-client.disable-communication',
      'rdm-client.enable-communication',
    ]);
  });

  it('checks guard points: absolute path, policy by type and domain, one per path', async () => {
    const create = (body: Record<string, unknown>, t = token, calls: typeof api.rdmClient = api.tdeClient) =>
      call(server, calls.guardPointCreate, { token: t, body: body as never });
    // Each refused create, with the code and a word its message names.
    const refused: [Record<string, unknown>, number, string][] = [
      [
        { client_id: clients.ec, path: 'data', type: 'directory_auto', policy_id: ids.std },
        Code.INVALID,
        'path',
      ],
      [{ client_id: clients.ec, path: '/data', type: 'directory_auto' }, Code.INVALID, 'policy_id'],
      [
        { client_id: clients.ec, path: '/data', type: 'rwp', policy_id: ids.std },
        Code.INVALID,
        'takes no policy',
      ],
      [
        { client_id: clients.ec, path: '/data', type: 'directory_auto', policy_id: ids.foreign },
        Code.INVALID,
        ids.foreign,
      ],
      [
        { client_id: clients.ec, path: '/data', type: 'directory_auto', policy_id: ids.rdm },
        Code.INVALID,
        'ransomware',
      ],
      // Another domain's client: not found.
      [
        { client_id: clients.tenant, path: '/x', type: 'directory_auto', policy_id: ids.std },
        Code.NOT_FOUND,
        String(clients.tenant),
      ],
    ];
    for (const [body, code, named] of refused) {
      const res = await create(body);
      expect(res.code, JSON.stringify(body)).toBe(code);
      expect(res.msg, JSON.stringify(body)).toContain(named);
    }
    expect((await failures('tde-client.guard-point.create')).join(' ')).toContain('tdeClient.policyType');

    const before = await epoch();
    const gp = ok(
      await create({ client_id: clients.ec, path: '/data/', type: 'directory_auto', policy_id: ids.std }),
    ).data;
    expect(gp).toMatchObject({
      path: '/data',
      policy_name: 'encrypt-data',
      enabled: true,
      origin: { kind: 'client' },
    });
    expect(await epoch()).toBe(before + 1);
    const twice = await create({
      client_id: clients.ec,
      path: '/data',
      type: 'directory_manual',
      policy_id: ids.std2,
    });
    expect(twice.code).toBe(Code.CONFLICT);
    expect(twice.msg).toContain('/data');

    // RDM: an rdm policy and an rwp guard point are fine; the mode follows.
    ok(await create({ client_id: clients.rdm, path: '/srv', type: 'rwp' }, token, api.rdmClient));
    let rdm = ok(await call(server, api.rdmClient.detail, { token, query: { id: clients.rdm! } })).data;
    expect(rdm.protection_mode).toBe('rwp');
    const std = ok(
      await create(
        { client_id: clients.rdm, path: '/home', type: 'directory_auto', policy_id: ids.rdm },
        token,
        api.rdmClient,
      ),
    ).data;
    rdm = ok(await call(server, api.rdmClient.detail, { token, query: { id: clients.rdm! } })).data;
    expect(rdm).toMatchObject({ protection_mode: 'cte_rwp', guard_points: 2 });
    // A TDE call cannot touch an RDM guard point, nor an RDM call a TDE one.
    expect((await call(server, api.tdeClient.guardPointDelete, { token, body: { id: std.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect((await call(server, api.rdmClient.guardPointDelete, { token, body: { id: gp.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    // Disable and unguard, each raising the epoch.
    const e1 = await epoch();
    const off = ok(
      await call(server, api.rdmClient.guardPointSetEnabled, { token, body: { id: std.id, enabled: false } }),
    ).data;
    expect(off.enabled).toBe(false);
    rdm = ok(await call(server, api.rdmClient.detail, { token, query: { id: clients.rdm! } })).data;
    expect(rdm.protection_mode).toBe('rwp');
    ok(await call(server, api.rdmClient.guardPointDelete, { token, body: { id: std.id } }));
    expect(await epoch()).toBe(e1 + 2);
    expect(
      (await call(server, api.rdmClient.guardPointDelete, { token: other.token, body: { id: gp.id } })).code,
    ).toBe(Code.NOT_FOUND);
    // A refused change is audited, naming the id it asked for.
    expect((await failures('rdm-client.guard-point.delete')).join(' ')).toContain(
      'tdeClient.guardPointNotFound',
    );
  });

  it('counts the suspicious-process records an RDM agent uploaded in the last 24 h', async () => {
    const row = ok(await call(server, api.rdmClient.detail, { token, query: { id: clients.rdm! } })).data;
    const record = (action: string, hoursAgo: number) => ({
      id: randomUUID(),
      domain_id: rootDomain,
      ca_id: 'ca',
      client_id: row.certificate.serial,
      client_cn: 'rdm-a',
      client_name: 'rdm-a',
      client_os: 'Linux',
      client_ip: '127.0.0.1',
      level: 'WARN',
      agent_at: new Date(server.clock.now.getTime() - hoursAgo * 3600_000).toISOString(),
      received_at: new Date(server.clock.now.getTime() - hoursAgo * 3600_000).toISOString(),
      action,
      effect: 'audit',
      policy: '',
      guard_point: '/srv',
      os_user: 'bob',
      process: '/tmp/crypt0r',
      resource: '/srv/a.doc',
      details: '{}',
    });
    await server.database.db
      .insertInto('client_log')
      .values([
        record(RDM_SUSPICIOUS_ACTION, 1),
        record(RDM_SUSPICIOUS_ACTION, 23),
        record(RDM_SUSPICIOUS_ACTION, 25),
        record('file.write', 1),
      ])
      .execute();
    const listed = ok(await call(server, api.rdmClient.list, { token, query: {} })).data;
    expect(listed.data[0]!.suspicious_24h).toBe(2);
  });

  it('manages client groups: profile, members, inherited guard points, and refuses conflicts', async () => {
    const before = await epoch();
    const g = ok(
      await call(server, api.tdeClient.groupCreate, {
        token,
        body: { name: 'web', description: 'web servers', profile: 'group-profile' },
      }),
    ).data;
    expect(g).toMatchObject({ name: 'web', profile: 'group-profile', members: 0, guard_points: 0 });
    expect(await epoch()).toBeGreaterThan(before);
    expect((await call(server, api.tdeClient.groupCreate, { token, body: { name: 'web' } })).code).toBe(
      Code.CONFLICT,
    );
    expect(
      (await call(server, api.tdeClient.groupCreate, { token, body: { name: 'x', profile: 'nope' } })).code,
    ).toBe(Code.INVALID);
    // The same name in another domain is another group; neither sees the other's.
    ok(await call(server, api.tdeClient.groupCreate, { token: other.token, body: { name: 'web' } }));
    expect(
      (await call(server, api.tdeClient.groupDetail, { token: other.token, query: { id: g.id } })).code,
    ).toBe(Code.NOT_FOUND);
    // Only TDE clients of the domain may join.
    for (const id of [clients.rdm!, clients.tenant!])
      expect(
        (await call(server, api.tdeClient.groupAddMembers, { token, body: { id: g.id, client_ids: [id] } }))
          .code,
      ).toBe(Code.NOT_FOUND);
    ok(
      await call(server, api.tdeClient.groupAddMembers, {
        token,
        body: { id: g.id, client_ids: [clients.ec!, clients.rsa!] },
      }),
    );
    const members = ok(await call(server, api.tdeClient.groupDetail, { token, query: { id: g.id } })).data;
    expect(members.member_list.map((m) => m.name).sort()).toEqual(['tde-ec', 'tde-rsa']);
    const ec = ok(await call(server, api.tdeClient.detail, { token, query: { id: clients.ec! } })).data;
    expect(ec).toMatchObject({ groups: [g.id], group_names: ['web'] });
    const filtered = ok(await call(server, api.tdeClient.list, { token, query: { group: g.id } })).data;
    expect(filtered.total).toBe(2);

    // A group guard point on a path a member already guards is refused, naming the member.
    const clash = await call(server, api.tdeClient.guardPointCreate, {
      token,
      body: { group_id: g.id, path: '/data', type: 'directory_auto', policy_id: ids.std2 },
    });
    expect(clash.code).toBe(Code.CONFLICT);
    expect(clash.msg).toContain('tde-ec');
    const groupGp = ok(
      await call(server, api.tdeClient.guardPointCreate, {
        token,
        body: { group_id: g.id, path: '/var/lib/app', type: 'directory_manual', policy_id: ids.std2 },
      }),
    ).data;
    expect(groupGp.origin).toEqual({ kind: 'group', id: g.id, name: 'web' });
    // Members inherit it; a member's own guard point on that path is refused.
    const rsaPoints = ok(
      await call(server, api.tdeClient.guardPoints, { token, query: { client_id: clients.rsa! } }),
    ).data.data;
    expect(rsaPoints.map((p) => [p.path, p.origin.kind])).toEqual([['/var/lib/app', 'group']]);
    expect(
      (
        await call(server, api.tdeClient.guardPointCreate, {
          token,
          body: { client_id: clients.rsa!, path: '/var/lib/app', type: 'directory_auto', policy_id: ids.std },
        })
      ).code,
    ).toBe(Code.CONFLICT);
    // A second group guarding /data cannot take tde-ec as a member.
    const g2 = ok(await call(server, api.tdeClient.groupCreate, { token, body: { name: 'db' } })).data;
    ok(
      await call(server, api.tdeClient.guardPointCreate, {
        token,
        body: { group_id: g2.id, path: '/data', type: 'directory_auto', policy_id: ids.std2 },
      }),
    );
    const join = await call(server, api.tdeClient.groupAddMembers, {
      token,
      body: { id: g2.id, client_ids: [clients.ec!] },
    });
    expect(join.code).toBe(Code.CONFLICT);
    expect((await failures('tde-client.group.add-members')).join(' ')).toContain('tdeClient.pathGuarded');
    // An RDM call has no groups.
    expect((await call(server, api.rdmClient.guardPoints, { token, query: { group_id: g.id } })).code).toBe(
      Code.INVALID,
    );

    // Delete is refused while the group has guard points.
    const refused = await call(server, api.tdeClient.groupDelete, { token, body: { id: g2.id } });
    expect(refused.code).toBe(Code.CONFLICT);
    expect(refused.msg).toContain('db');
    const g2Points = ok(
      await call(server, api.tdeClient.guardPoints, { token, query: { group_id: g2.id } }),
    ).data;
    ok(await call(server, api.tdeClient.guardPointDelete, { token, body: { id: g2Points.data[0]!.id } }));
    ok(await call(server, api.tdeClient.groupDelete, { token, body: { id: g2.id } }));

    // Leaving a group drops its guard points and its id from the client.
    ok(
      await call(server, api.tdeClient.groupRemoveMembers, {
        token,
        body: { id: g.id, client_ids: [clients.rsa!] },
      }),
    );
    const rsa = ok(await call(server, api.tdeClient.detail, { token, query: { id: clients.rsa! } })).data;
    expect(rsa).toMatchObject({ groups: [], guard_points: 0 });
  });

  it("composes an agent's document: profile, guard points with origin, policies, keys wrapped to its certificate", async () => {
    const ecConfig = await configOf(clients.ec!);
    expect(ecConfig.version).toBe(await epoch());
    expect(ecConfig.client_id).toBe(clients.ec);
    // Its own profile wins over the group's.
    expect(ecConfig.profile?.name).toBe('verbose');
    expect(ecConfig.guard_points.map((p) => [p.path, p.origin.kind, p.policy?.name])).toEqual([
      ['/data', 'client', 'encrypt-data'],
      ['/var/lib/app', 'group', 'audit-only'],
    ]);
    expect(ecConfig.keys).toHaveLength(1);
    const ecKey = ecConfig.keys[0]!;
    expect(ecKey).toMatchObject({
      id: keyId,
      name: 'tde-key',
      version: 1,
      algorithm: 'AES-256',
      alg: 'ECDH-ES+A256GCM',
    });
    const exported = ok(
      await call(server, api.key.export, {
        token,
        body: {
          id: keyId,
          wrap_public_key: exportWrap.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
        },
      }),
    ).data;
    const raw = privateDecrypt(
      { key: exportWrap.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(exported.material, 'base64'),
    );
    expect(unwrapAgentKey(ecKey, ecAgent.key).equals(raw)).toBe(true);
    // Another client's key cannot open it.
    expect(() => unwrapAgentKey(ecKey, rdmAgent.key)).toThrow();
    // The delivery is audited as a use of the key, naming the client.
    const delivered = await server.database.db
      .selectFrom('audit_log')
      .select(['username', 'object_id'])
      .where('action', '=', 'key.agent-deliver')
      .execute();
    expect(delivered).toContainEqual(
      expect.objectContaining({ username: 'client:tde-ec', object_id: keyId }),
    );

    // An RSA agent gets RSA-OAEP-256; a group profile applies when the client names none.
    ok(
      await call(server, api.tdeClient.groupAddMembers, {
        token,
        body: { id: (await groupId('web'))!, client_ids: [clients.rsa!] },
      }),
    );
    ok(
      await call(server, api.tdeClient.guardPointCreate, {
        token,
        body: { client_id: clients.rsa!, path: 'C:\\secure', type: 'directory_auto', policy_id: ids.std },
      }),
    );
    const rsaConfig = await configOf(clients.rsa!);
    expect(rsaConfig.profile?.name).toBe('group-profile');
    expect(rsaConfig.keys[0]).toMatchObject({ alg: 'RSA-OAEP-256', version: 1 });
    expect(unwrapAgentKey(rsaConfig.keys[0]!, rsaAgent.key).equals(raw)).toBe(true);

    // A new key version raises the epoch; the next document carries version 2.
    const before = await epoch();
    ok(await call(server, api.key.addVersion, { token, body: { id: keyId } }));
    expect(await epoch()).toBe(before + 1);
    const rotated = await configOf(clients.ec!);
    expect(rotated.version).toBe(before + 1);
    expect(rotated.keys[0]!.version).toBe(2);
    expect(unwrapAgentKey(rotated.keys[0]!, ecAgent.key).equals(raw)).toBe(false);

    // A disabled guard point's policy keys are not delivered.
    const own = ok(
      await call(server, api.tdeClient.guardPoints, { token, query: { client_id: clients.ec! } }),
    ).data;
    const dataGp = own.data.find((p) => p.path === '/data')!;
    ok(
      await call(server, api.tdeClient.guardPointSetEnabled, {
        token,
        body: { id: dataGp.id, enabled: false },
      }),
    );
    const disabled = await configOf(clients.ec!);
    expect(disabled.guard_points.find((p) => p.path === '/data')!.enabled).toBe(false);
    expect(disabled.keys).toEqual([]);
  });

  const groupId = async (name: string) =>
    (
      await server.database.db
        .selectFrom('tde_client_group')
        .select('id')
        .where('domain_id', '=', rootDomain)
        .where('name', '=', name)
        .executeTakeFirst()
    )?.id;

  it('tells the policy module what uses a policy or a profile', async () => {
    const unused = () => {
      throw new Error('not used');
    };
    const { tdeUsage } = createTdeClientService({
      db: server.database.db,
      clock: () => server.clock.now,
      clients: unused,
      policies: () => policies.catalog,
      keyVault: unused,
    });
    const db = server.database.db;
    // /data on tde-ec (disabled) and C:\secure on tde-rsa use encrypt-data; the group's /var/lib/app audit-only.
    expect(await tdeUsage.guardPointsUsingPolicy(db, rootDomain, ids.std)).toBe(2);
    expect(await tdeUsage.guardPointsUsingPolicy(db, rootDomain, ids.std2)).toBe(1);
    expect(await tdeUsage.guardPointsUsingPolicy(db, other.domainId, ids.std)).toBe(0);
    // verbose: tde-ec; group-profile: the group web.
    expect(await tdeUsage.usersOfProfile(db, rootDomain, 'verbose')).toBe(1);
    expect(await tdeUsage.usersOfProfile(db, rootDomain, 'group-profile')).toBe(1);
    expect(await tdeUsage.usersOfProfile(db, other.domainId, 'verbose')).toBe(0);
  });

  it('answers an agent waiting on the config channel with the NEW profile after set-profile (TDE and RDM)', async () => {
    // Later than the other tests' signed calls, within the allowed skew; increasing per call.
    let ts = server.clock.now.getTime() + 5_000;
    const held = (clientId: string, key: KeyObject, since: number) => {
      const payload = JSON.stringify({ since_version: since, wait_s: 20 });
      const digest = createHash('sha256').update(payload).digest('hex');
      const timestamp = ++ts;
      const signature = sign('sha256', Buffer.from(signedText(clientId, timestamp, digest)), key).toString(
        'base64',
      );
      return call(server, api.client.config, {
        body: { client_id: clientId, timestamp, payload, signature },
      });
    };
    const cases = [
      { clientId: clients.ec!, key: ecAgent.key, set: api.tdeClient.setProfile, profile: 'group-profile' },
      { clientId: clients.rdm!, key: rdmAgent.key, set: api.rdmClient.setProfile, profile: 'verbose' },
    ];
    for (const c of cases) {
      const since = await epoch();
      expect((await configOf(c.clientId)).profile?.name).not.toBe(c.profile);
      const waiting = held(c.clientId, c.key, since);
      // The call is held until the change (the waiter is registered before set-profile runs).
      await until('the config call to be held', () => server.services.clients.waitingConfigCalls() === 1);
      ok(await call(server, c.set, { token, body: { id: c.clientId, profile: c.profile } }));
      const answer = ok(await waiting).data;
      expect(answer).toMatchObject({ state: 'enrolled', changed: true });
      expect(answer.config.version).toBe(since + 1);
      expect(answer.config.profile?.name).toBe(c.profile);
    }
  });

  it('force delete removes the client with its guard points and memberships', async () => {
    const gid = (await groupId('web'))!;
    ok(await call(server, api.tdeClient.forceDelete, { token, body: { id: clients.rsa! } }));
    const left = await server.database.db
      .selectFrom('tde_guard_point')
      .select('id')
      .where('client_id', '=', clients.rsa!)
      .execute();
    expect(left).toEqual([]);
    const group = ok(await call(server, api.tdeClient.groupDetail, { token, query: { id: gid } })).data;
    expect(group.member_list.map((m) => m.name)).toEqual(['tde-ec']);
    expect((await call(server, api.tdeClient.detail, { token, query: { id: clients.rsa! } })).code).toBe(
      Code.NOT_FOUND,
    );
  });
});
