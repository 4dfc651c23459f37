import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, DEFAULT_PROFILE, SecurityRule, type CallDef } from '@ksp/contracts';
import { clientConfigEpoch, type TdeUsage } from '../../platform/agent-config.js';
import {
  call,
  callUnchecked,
  domainWithAdmin,
  engines,
  login,
  ok,
  roleIdByName,
  type TestServer,
} from '../../test/harness.js';
import { rootDomainId, signedInServer } from '../../test/fixtures.js';
import { opensslTls } from '../../test/syslog-receiver.js';

const HASH = 'ab'.repeat(32);
const HASH2 = 'CD'.repeat(32);

describe.each(await engines())('TDE policies on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let domainId: string;
  let other: { domainId: string; token: string };
  let auditor: string;
  let rdmOnly: string;
  // What the TDE client module would answer: guard points per policy, users per profile.
  const guardPoints = new Map<string, number>();
  const profileUsers = new Map<string, number>();
  const usage: TdeUsage = {
    guardPointsUsingPolicy: async (_db, _d, id) => guardPoints.get(id) ?? 0,
    usersOfProfile: async (_db, _d, name) => profileUsers.get(name) ?? 0,
  };

  signedInServer(engine, (started) => ({ server, token } = started), {
    start: { services: { tdeUsage: usage } },
  });
  beforeAll(async () => {
    domainId = await rootDomainId(server.database.db);
    other = await domainWithAdmin(server, token, {
      domain: 'tenant',
      username: 'tenant-admin',
      password: 'Tenant-Pass-1',
    });
    const rdmRole = ok(
      await call(server, api.role.create, {
        token,
        body: { name: 'rdm-only', permissions: ['rdm:read', 'rdm:write'] },
      }),
    ).data.id;
    for (const [username, roleId] of [
      ['auditor', await roleIdByName(server.database.db, 'Auditor')],
      ['rdm-user', rdmRole],
    ] as const)
      ok(
        await call(server, api.user.create, {
          token,
          body: {
            username,
            password: 'Policy-Pass-1',
            email: `${username}@example.test`,
            role_ids: [roleId],
            must_change_password: false,
          },
        }),
      );
    auditor = await login(server, 'auditor', 'Policy-Pass-1');
    rdmOnly = await login(server, 'rdm-user', 'Policy-Pass-1');
  });

  const post = <C extends CallDef>(def: C, body: unknown, t = token) =>
    callUnchecked(server, def, { token: t, body });
  const get = <C extends CallDef>(def: C, query: Record<string, string | number>, t = token) =>
    callUnchecked(server, def, {
      token: t,
      query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    });
  const epoch = () => clientConfigEpoch(server.database.db, domainId);
  const failures = async (action: string) =>
    (
      await server.database.db
        .selectFrom('audit_log')
        .select(['details'])
        .where('action', '=', action)
        .where('result', '=', 'failure')
        .execute()
    ).map((r) => r.details ?? '');

  const element = async (body: Record<string, unknown>, t = token) => {
    const res = await post(api.tdePolicy.elementCreate, body, t);
    return ok(res as { code: number; msg: string; data: { id: string } }).data.id;
  };
  const tdeKey = async (
    name: string,
    cte: object | null = { versioned: false, persistent_on_client: false, encryption_mode: 'CBC' },
    algorithm = 'AES-256',
    t = token,
  ) =>
    ok(
      await call(server, api.key.create, {
        token: t,
        body: { name, algorithm, usage_mask: 0xc, ...(cte ? { cte } : {}) } as never,
      }),
    ).data.id;

  describe('policy elements', () => {
    it('creates each kind, normalising entries, and raises the epoch with each change', async () => {
      const before = await epoch();
      const res = ok(
        await call(server, api.tdePolicy.elementCreate, {
          token,
          body: {
            kind: 'resource',
            name: 'finance-data',
            description: 'finance files',
            resources: [
              { directory: '/reports//2024/', file: '*.xlsx', include_subfolders: true },
              { directory: '/', file: '', include_subfolders: false },
            ],
          },
        }),
      );
      expect(res.data).toMatchObject({
        kind: 'resource',
        name: 'finance-data',
        entry_count: 2,
        used_by: [],
        resources: [
          { directory: '/reports/2024', file: '*.xlsx', include_subfolders: true },
          { directory: '/', file: '', include_subfolders: false },
        ],
      });
      expect(await epoch()).toBe(before + 1);
      const sig = ok(
        await call(server, api.tdePolicy.elementCreate, {
          token,
          body: {
            kind: 'signature',
            name: 'signed-tools',
            source_list: ['/usr/bin/backup'],
            signatures: [{ file_name: '/usr/bin/backup', hash_value: HASH2 }],
          },
        }),
      ).data;
      expect(sig.signatures[0]!.hash_value).toBe(HASH2.toLowerCase());
      const proc = ok(
        await call(server, api.tdePolicy.elementCreate, {
          token,
          body: {
            kind: 'process',
            name: 'backup-tools',
            processes: [
              { directory: '/usr/bin', file: 'backup', signature_set_id: sig.id },
              { directory: 'C:\\Tools', file: '' },
            ],
          },
        }),
      ).data;
      expect(proc.processes[0]).toMatchObject({ signature_set_name: 'signed-tools' });
      const users = ok(
        await call(server, api.tdePolicy.elementCreate, {
          token,
          body: {
            kind: 'user',
            name: 'staff',
            users: [{ uname: 'alice' }, { gid: 1000, gname: 'staff' }, { uid: 0 }],
          },
        }),
      ).data;
      expect(users.entry_count).toBe(3);
      // The signature set is now used by the process set.
      const sigNow = ok(
        await call(server, api.tdePolicy.elementDetail, { token, query: { id: sig.id } }),
      ).data;
      expect(sigNow.used_by).toEqual([{ kind: 'element', id: proc.id, name: 'backup-tools' }]);
      expect(await epoch()).toBe(before + 4);
    });

    it.each([
      [
        { kind: 'resource', name: 'r1', resources: [{ directory: 'relative' }] },
        'resources[0].directory: must start with /',
      ],
      [{ kind: 'resource', name: 'r1', resources: [{ directory: '/a/../b' }] }, 'resources[0].directory'],
      [
        { kind: 'resource', name: 'r1', resources: [{ directory: '/a', file: 'x/y' }] },
        'resources[0].file: must be a file name',
      ],
      [{ kind: 'resource', name: 'r1', users: [{ uid: 1 }] }, 'users: a resource set has no such entries'],
      [{ kind: 'user', name: 'u1', users: [{}] }, 'users[0]: give at least one of'],
      [{ kind: 'user', name: 'u1', users: [{ uid: -1 }] }, 'users.0.uid'],
      [{ kind: 'user', name: 'u1', users: [{ uid: 4294967295 }] }, 'users.0.uid'],
      [{ kind: 'process', name: 'p1', processes: [{}] }, 'processes[0]: give a directory, a file or both'],
      [
        { kind: 'process', name: 'p1', processes: [{ directory: 'bin' }] },
        'processes[0].directory: must be an absolute path',
      ],
      [
        {
          kind: 'process',
          name: 'p1',
          processes: [{ file: 'x', signature_set_id: '00000000-0000-4000-8000-000000000000' }],
        },
        'processes[0].signature_set_id: no signature set',
      ],
      [
        { kind: 'signature', name: 's1', signatures: [{ file_name: '/x', hash_value: 'xyz' }] },
        'signatures[0].hash_value: must be a SHA-256 hash',
      ],
      [
        { kind: 'signature', name: 's1', source_list: ['usr/bin'] },
        'source_list[0]: must be an absolute path',
      ],
    ])('refuses bad entries with the field and rule: %j', async (body, message) => {
      const res = await post(api.tdePolicy.elementCreate, body);
      expect(res.code).toBe(Code.INVALID);
      expect(res.msg).toContain(message);
    });

    it('answers the field error in Chinese too', async () => {
      const res = await callUnchecked(server, api.tdePolicy.elementCreate, {
        token,
        body: { kind: 'signature', name: 's1', signatures: [{ file_name: '/x', hash_value: 'xyz' }] },
        headers: { 'accept-language': 'zh-CN' },
      });
      expect(res.msg).toBe('signatures[0].hash_value：必须是 SHA-256 哈希，64 个十六进制字符');
    });

    it('keeps names unique per kind, refusing a duplicate and auditing the refusal', async () => {
      const res = await post(api.tdePolicy.elementCreate, {
        kind: 'resource',
        name: 'finance-data',
        resources: [{ directory: '/' }],
      });
      expect(res.code).toBe(Code.CONFLICT);
      expect(res.msg).toBe("A resource set named 'finance-data' already exists");
      expect((await failures('policyElement.create')).join()).toContain('tdePolicy.elementNameTaken');
      // Another kind may carry the same name.
      await element({ kind: 'user', name: 'finance-data', users: [{ uname: 'bob' }] });
    });

    it('lists by kind and name with entry counts and users', async () => {
      const list = ok(
        await call(server, api.tdePolicy.elementList, {
          token,
          query: { kind: 'resource', page: 1, page_size: 10 },
        }),
      ).data;
      expect(list.data.map((r) => r.name)).toEqual(['finance-data']);
      const named = ok(
        await call(server, api.tdePolicy.elementList, {
          token,
          query: { name: 'finance', page: 1, page_size: 10 },
        }),
      ).data;
      expect(named.total).toBe(2);
      expect(named.data.map((r) => r.kind).sort()).toEqual(['resource', 'user']);
    });

    it('updates entries (the kind stays), and refuses a delete while a set refers to it', async () => {
      const sig = (
        await call(server, api.tdePolicy.elementList, {
          token,
          query: { kind: 'signature', page: 1, page_size: 10 },
        })
      ).data.data[0]!;
      const del = await post(api.tdePolicy.elementDelete, { id: sig.id });
      expect(del.code).toBe(Code.CONFLICT);
      expect(del.msg).toBe(
        'The signature set signed-tools is used by element backup-tools: remove it from them first',
      );
      const up = ok(
        await call(server, api.tdePolicy.elementUpdate, {
          token,
          body: {
            id: sig.id,
            name: 'signed-tools',
            signatures: [
              { file_name: '/usr/bin/backup', hash_value: HASH2 },
              { file_name: '/usr/bin/backup2', hash_value: HASH },
            ],
          },
        }),
      ).data;
      expect(up).toMatchObject({ kind: 'signature', entry_count: 2 });
      const wrong = await post(api.tdePolicy.elementUpdate, {
        id: sig.id,
        name: 'signed-tools',
        resources: [{ directory: '/' }],
      });
      expect(wrong.msg).toBe('resources: a signature set has no such entries');
    });
  });

  describe('policies', () => {
    let sets: Record<string, string>;
    let keyId: string;
    let policyId: string;
    beforeAll(async () => {
      const page = await call(server, api.tdePolicy.elementList, {
        token,
        query: { page: 1, page_size: 100 },
      });
      sets = Object.fromEntries(page.data.data.map((r) => [`${r.kind}:${r.name}`, r.id]));
      keyId = await tdeKey('tde-key');
    });

    it('creates a standard policy with ordered rules and compiles it for agents', async () => {
      const before = await epoch();
      const res = ok(
        await call(server, api.tdePolicy.policyCreate, {
          token,
          body: {
            name: 'finance-policy',
            description: 'finance',
            learn_mode: true,
            security_rules: [
              {
                user_set_id: sets['user:staff']!,
                process_set_id: sets['process:backup-tools']!,
                resource_set_id: sets['resource:finance-data']!,
                actions: ['read', 'write'],
                effects: ['permit', 'audit', 'applykey'],
              },
              { actions: ['all_ops'], effects: ['deny', 'audit'], exclude_user_set: false },
            ],
            key_rules: [
              { resource_set_id: sets['resource:finance-data']!, key_id: keyId },
              { key_id: 'clear_key' },
            ],
          },
        }),
      ).data;
      policyId = res.id;
      expect(res).toMatchObject({
        type: 'standard',
        revision: 1,
        learn_mode: true,
        guard_points: 0,
        security_rules: [
          { order: 1, user_set: { name: 'staff' }, resource_set: { name: 'finance-data' } },
          { order: 2, user_set: null },
        ],
        key_rules: [
          { order: 1, key_name: 'tde-key' },
          { order: 2, key_id: 'clear_key', key_name: null },
        ],
      });
      expect(await epoch()).toBe(before + 1);
      const compiled = await server.services.tdePolicies.compile(server.database.db, domainId, policyId);
      expect(compiled).toEqual({
        id: policyId,
        name: 'finance-policy',
        type: 'standard',
        learn_mode: true,
        revision: 1,
        security_rules: [
          {
            order: 1,
            users: [{ uname: 'alice' }, { gid: 1000, gname: 'staff' }, { uid: 0 }],
            exclude_users: false,
            processes: [
              { directory: '/usr/bin', file: 'backup', sha256: [HASH2.toLowerCase(), HASH] },
              { directory: 'C:\\Tools' },
            ],
            exclude_processes: false,
            resources: [
              { directory: '/reports/2024', file: '*.xlsx', include_subfolders: true },
              { directory: '/', include_subfolders: false },
            ],
            exclude_resources: false,
            actions: ['read', 'write'],
            effects: ['permit', 'audit', 'applykey'],
          },
          { order: 2, actions: ['all_ops'], effects: ['deny', 'audit'] },
        ],
        key_rules: [
          {
            order: 1,
            resources: [
              { directory: '/reports/2024', file: '*.xlsx', include_subfolders: true },
              { directory: '/', include_subfolders: false },
            ],
            key_id: keyId,
          },
          { order: 2, key_id: null },
        ],
      });
      expect(await server.services.tdePolicies.describe(server.database.db, domainId, policyId)).toEqual({
        id: policyId,
        name: 'finance-policy',
        type: 'standard',
      });
      // Another domain's policy is none of this domain's.
      expect(
        await server.services.tdePolicies.compile(server.database.db, other.domainId, policyId),
      ).toBeUndefined();
      // The sets now name the policy as a user.
      const staff = ok(
        await call(server, api.tdePolicy.elementDetail, { token, query: { id: sets['user:staff']! } }),
      ).data;
      expect(staff.used_by).toEqual([{ kind: 'policy', id: policyId, name: 'finance-policy' }]);
    });

    it('refuses rules naming unknown sets, sets of the wrong kind or unusable keys', async () => {
      const base = { name: 'bad', security_rules: [] as unknown[], key_rules: [] as unknown[] };
      const cases: [unknown, string][] = [
        [
          {
            ...base,
            security_rules: [
              { user_set_id: sets['resource:finance-data'], actions: ['read'], effects: ['permit'] },
            ],
          },
          'security_rules[0].user_set_id: no user set',
        ],
        [
          { ...base, security_rules: [{ actions: ['read'], effects: ['permit', 'deny'] }] },
          'security_rules[0].effects: a rule cannot both permit and deny',
        ],
        [
          { ...base, security_rules: [{ actions: ['fly'], effects: ['permit'] }] },
          'security_rules.0.actions.0',
        ],
        [{ ...base, key_rules: [{ key_id: 'not-a-key' }] }, 'key_rules[0].key_id: key not-a-key not found'],
        [
          { ...base, key_rules: [{ key_id: await tdeKey('plain-aes', null) }] },
          'key_rules[0].key_id: key plain-aes cannot encrypt TDE files',
        ],
        [
          {
            ...base,
            key_rules: [
              {
                key_id: await tdeKey(
                  'aes128',
                  { versioned: false, persistent_on_client: false, encryption_mode: 'CBC' },
                  'AES-128',
                ),
              },
            ],
          },
          'key aes128 cannot',
        ],
        [
          {
            ...base,
            key_rules: [
              {
                key_id: await tdeKey('xts', {
                  versioned: false,
                  persistent_on_client: false,
                  encryption_mode: 'XTS',
                }),
              },
            ],
          },
          'key xts cannot',
        ],
        [
          { ...base, rdm: { mode: 'audit', threshold: { files: 10, window_s: 10 } } },
          'rdm: only RDM policies have RDM settings',
        ],
      ];
      for (const [body, message] of cases) {
        const res = await post(api.tdePolicy.policyCreate, body);
        expect(res.code, message).toBe(Code.INVALID);
        expect(res.msg).toContain(message);
      }
      // Another domain's key is "not found", as are its sets.
      const theirKey = await tdeKey('their-key', undefined, 'AES-256', other.token);
      const res = await post(api.tdePolicy.policyCreate, { ...base, key_rules: [{ key_id: theirKey }] });
      expect(res.msg).toBe(`key_rules[0].key_id: key ${theirKey} not found in this domain`);
      const theirSet = await element({ kind: 'user', name: 'their-users', users: [{ uid: 5 }] }, other.token);
      const res2 = await post(api.tdePolicy.policyCreate, {
        ...base,
        security_rules: [{ user_set_id: theirSet, actions: ['read'], effects: ['permit'] }],
      });
      expect(res2.code).toBe(Code.INVALID);
      expect((await failures('policy.create')).length).toBeGreaterThanOrEqual(cases.length);
    });

    it('offers the TDE-usable keys only', async () => {
      const keys = ok(await call(server, api.tdePolicy.keyOptions, { token })).data;
      expect(keys.map((k) => k.name)).toEqual(['tde-key']);
    });

    it('reorders rules by update, raising the revision; the type stays', async () => {
      const detail = ok(
        await call(server, api.tdePolicy.policyDetail, { token, query: { id: policyId } }),
      ).data;
      // A rule as the update takes it: its row without the order and the sets' names.
      const rules = detail.security_rules.map((r) => SecurityRule.parse(r));
      const before = await epoch();
      const updated = ok(
        await call(server, api.tdePolicy.policyUpdate, {
          token,
          body: {
            id: policyId,
            name: 'finance-policy',
            security_rules: [rules[1]!, rules[0]!],
            key_rules: [{ key_id: 'clear_key' }],
          },
        }),
      ).data;
      expect(updated.revision).toBe(2);
      expect(updated.learn_mode).toBe(false);
      expect(updated.security_rules.map((r) => r.actions)).toEqual([['all_ops'], ['read', 'write']]);
      expect(await epoch()).toBe(before + 1);
      const compiled = await server.services.tdePolicies.compile(server.database.db, domainId, policyId);
      expect(compiled?.revision).toBe(2);
      expect(compiled?.security_rules[0]).toMatchObject({ order: 1, actions: ['all_ops'] });
      const locked = await post(api.tdePolicy.policyUpdate, {
        id: policyId,
        name: 'finance-policy',
        type: 'rdm',
      });
      expect(locked.code).toBe(Code.STATE_FORBIDS);
      expect(locked.msg).toBe(
        'The type of policy finance-policy is standard: it cannot change after creation',
      );
    });

    it('refuses to delete a set a policy uses, and a policy a guard point uses', async () => {
      const res = await post(api.tdePolicy.elementDelete, { id: sets['user:staff']! });
      expect(res.code).toBe(Code.CONFLICT);
      expect(res.msg).toContain('used by policy finance-policy');
      guardPoints.set(policyId, 2);
      const del = await post(api.tdePolicy.policyDelete, { id: policyId });
      expect(del.code).toBe(Code.CONFLICT);
      expect(del.msg).toBe('Policy finance-policy is used by 2 guard point(s): remove it from them first');
      expect(
        ok(await call(server, api.tdePolicy.policyDetail, { token, query: { id: policyId } })).data
          .guard_points,
      ).toBe(2);
      expect((await failures('policy.delete')).join()).toContain('tdePolicy.policyInUse');
    });

    it('refuses edits of a restricted policy while in use', async () => {
      const p = ok(
        await call(server, api.tdePolicy.policyCreate, {
          token,
          body: { name: 'restricted', restrict_update: true },
        }),
      ).data;
      guardPoints.set(p.id, 1);
      const res = await post(api.tdePolicy.policyUpdate, {
        id: p.id,
        name: 'restricted',
        restrict_update: false,
      });
      expect(res.code).toBe(Code.STATE_FORBIDS);
      guardPoints.delete(p.id);
      ok(
        await call(server, api.tdePolicy.policyUpdate, {
          token,
          body: { id: p.id, name: 'restricted', description: 'x' },
        }),
      );
    });

    it("refuses to delete a key a policy's key rule uses, until the policy lets it go", async () => {
      const keyId = await tdeKey('ledger-key');
      const p = ok(
        await call(server, api.tdePolicy.policyCreate, {
          token,
          body: { name: 'ledger-keys', key_rules: [{ key_id: keyId }] },
        }),
      ).data;
      const refused = await call(server, api.key.delete, { token, body: { ids: [keyId] } });
      expect(refused.code).toBe(Code.CONFLICT);
      expect(refused.msg).toBe(
        "'ledger-key' is used by the key rules of TDE policy 'ledger-keys': change the policy first",
      );
      expect((await call(server, api.key.delete, { token, body: { ids: [keyId] }, lang: 'zh' })).msg).toBe(
        '“ledger-key”正被透明加密策略“ledger-keys”的密钥规则使用，请先修改该策略',
      );
      expect(ok(await call(server, api.key.detail, { token, query: { id: keyId } })).data.name).toBe(
        'ledger-key',
      );
      expect((await failures('key.delete')).join()).toContain('ledger-keys');
      ok(
        await call(server, api.tdePolicy.policyUpdate, {
          token,
          body: { id: p.id, name: 'ledger-keys', key_rules: [] },
        }),
      );
      ok(await call(server, api.key.delete, { token, body: { ids: [keyId] } }));
      ok(await call(server, api.tdePolicy.policyDelete, { token, body: { id: p.id } }));
    });

    it('deletes a policy no guard point uses, freeing its sets', async () => {
      guardPoints.delete(policyId);
      const before = await epoch();
      ok(await call(server, api.tdePolicy.policyDelete, { token, body: { id: policyId } }));
      expect(await epoch()).toBe(before + 1);
      expect((await get(api.tdePolicy.policyDetail, { id: policyId })).code).toBe(Code.NOT_FOUND);
      const staff = ok(
        await call(server, api.tdePolicy.elementDetail, { token, query: { id: sets['user:staff']! } }),
      ).data;
      expect(staff.used_by).toEqual([]);
    });

    it('manages RDM policies through the RDM calls, with their own rules', async () => {
      const base = {
        name: 'ransom-guard',
        rdm: {
          mode: 'block',
          trusted_process_set_ids: [sets['process:backup-tools']!],
          threshold: { files: 50, window_s: 10 },
        },
      };
      const badThreshold = await post(
        api.rdmPolicy.policyCreate,
        { ...base, rdm: { ...base.rdm, threshold: { files: 1, window_s: 10 } } },
        rdmOnly,
      );
      expect(badThreshold.code).toBe(Code.INVALID);
      expect(badThreshold.msg).toContain('rdm.threshold.files');
      expect((await post(api.rdmPolicy.policyCreate, { name: 'x' }, rdmOnly)).msg).toBe(
        'rdm: an RDM policy needs its mode, trusted processes and threshold',
      );
      expect(
        (await post(api.rdmPolicy.policyCreate, { ...base, key_rules: [{ key_id: 'clear_key' }] }, rdmOnly))
          .msg,
      ).toBe('key_rules: RDM policies encrypt nothing and have no key rules');
      const made = ok(await callUnchecked(server, api.rdmPolicy.policyCreate, { token: rdmOnly, body: base }))
        .data as { id: string; type: string };
      expect(made.type).toBe('rdm');
      const compiled = await server.services.tdePolicies.compile(server.database.db, domainId, made.id);
      expect(compiled?.rdm).toEqual({
        mode: 'block',
        trusted_processes: [
          { directory: '/usr/bin', file: 'backup', sha256: [HASH2.toLowerCase(), HASH] },
          { directory: 'C:\\Tools' },
        ],
        threshold: { files: 50, window_s: 10 },
      });
      // RDM users read elements through the RDM calls, not the TDE ones.
      expect((await get(api.rdmPolicy.elementList, { page: 1, page_size: 10 }, rdmOnly)).code).toBe(0);
      expect((await get(api.tdePolicy.elementList, { page: 1, page_size: 10 }, rdmOnly)).code).toBe(
        Code.FORBIDDEN,
      );
      expect((await get(api.tdePolicy.policyList, { page: 1, page_size: 10 }, rdmOnly)).code).toBe(
        Code.FORBIDDEN,
      );
      // The RDM calls see RDM policies only; the TDE list sees both types.
      const rdmList = (await get(api.rdmPolicy.policyList, { page: 1, page_size: 10 }, rdmOnly)).data as {
        data: { name: string }[];
      };
      expect(rdmList.data.map((p) => p.name)).toEqual(['ransom-guard']);
      const standard = (await get(api.tdePolicy.policyList, { page: 1, page_size: 10, type: 'standard' }))
        .data as { data: { name: string }[] };
      expect(standard.data.map((p) => p.name)).toEqual(['restricted']);
      const restricted = (await get(api.tdePolicy.policyList, { page: 1, page_size: 10, name: 'restricted' }))
        .data as { data: { id: string }[] };
      expect((await get(api.rdmPolicy.policyDetail, { id: restricted.data[0]!.id }, rdmOnly)).code).toBe(
        Code.NOT_FOUND,
      );
      const updated = await post(
        api.rdmPolicy.policyUpdate,
        { ...base, id: made.id, rdm: { ...base.rdm, mode: 'audit' } },
        rdmOnly,
      );
      expect(updated.data).toMatchObject({
        revision: 2,
        rdm: { mode: 'audit', trusted_process_sets: [{ name: 'backup-tools' }] },
      });
      expect((await post(api.rdmPolicy.policyDelete, { id: made.id }, rdmOnly)).code).toBe(0);
    });

    it("refuses writes to readers and another domain's objects", async () => {
      expect((await post(api.tdePolicy.policyCreate, { name: 'nope' }, auditor)).code).toBe(Code.FORBIDDEN);
      expect(
        (
          await post(
            api.tdePolicy.elementCreate,
            { kind: 'user', name: 'nope', users: [{ uid: 1 }] },
            auditor,
          )
        ).code,
      ).toBe(Code.FORBIDDEN);
      expect((await post(api.tdePolicy.profileCreate, { name: 'nope' }, auditor)).code).toBe(Code.FORBIDDEN);
      expect((await get(api.tdePolicy.policyList, { page: 1, page_size: 10 }, auditor)).code).toBe(0);
      const mine = sets['resource:finance-data']!;
      for (const [def, input] of [
        [api.tdePolicy.elementDetail, { id: mine }],
        [api.tdePolicy.elementUpdate, { id: mine, name: 'owned', resources: [{ directory: '/' }] }],
        [api.tdePolicy.elementDelete, { id: mine }],
      ] as const) {
        const res =
          def.method === 'GET'
            ? await get(def, input as never, other.token)
            : await post(def, input, other.token);
        expect(res.code).toBe(Code.NOT_FOUND);
      }
      const list = JSON.stringify(
        (await get(api.tdePolicy.elementList, { page: 1, page_size: 100 }, other.token)).data,
      );
      expect(list).not.toContain('finance-data');
    });
  });

  describe('client profiles', () => {
    it('makes the default profile when first needed; it cannot be deleted', async () => {
      const list = ok(
        await call(server, api.tdePolicy.profileList, { token, query: { page: 1, page_size: 10 } }),
      ).data;
      expect(list.data[0]).toMatchObject({
        name: DEFAULT_PROFILE,
        is_default: true,
        logging: { threshold: 'WARN' },
        connect_timeout_s: 30,
        rwp_operation: 'permit',
      });
      const del = await post(api.tdePolicy.profileDelete, { name: DEFAULT_PROFILE });
      expect(del.code).toBe(Code.STATE_FORBIDS);
      expect(
        await server.services.tdePolicies.profile(server.database.db, other.domainId, null),
      ).toMatchObject({
        name: DEFAULT_PROFILE,
        log_threshold: 'WARN',
        rwp_trusted_processes: [],
      });
    });

    it('creates, updates and deletes a profile by name, within the ranges', async () => {
      const procs = (
        await call(server, api.tdePolicy.elementList, {
          token,
          query: { kind: 'process', page: 1, page_size: 10 },
        })
      ).data.data[0]!;
      for (const [body, message] of [
        [{ name: 'p', connect_timeout_s: 4 }, 'connect_timeout_s'],
        [{ name: 'p', upload_settings: { max_messages: 50 } }, 'upload_settings.max_messages'],
        [{ name: 'p', cache_settings: { max_files: 100 } }, 'cache_settings.max_files'],
        [{ name: 'p', file_settings: { max_old_files: 101 } }, 'file_settings.max_old_files'],
        [
          { name: 'p', upload_settings: { min_interval_s: 100, max_interval_s: 50 } },
          'upload_settings.max_interval_s: must be at least min_interval_s (100)',
        ],
        [{ name: 'p', rwp_process_set_id: sets_placeholder() }, 'rwp_process_set_id: no process set'],
      ] as const) {
        const res = await post(api.tdePolicy.profileCreate, body);
        expect(res.code, message).toBe(Code.INVALID);
        expect(res.msg).toContain(message);
      }
      const before = await epoch();
      const made = ok(
        await call(server, api.tdePolicy.profileCreate, {
          token,
          body: {
            name: 'linux-servers',
            logging: { threshold: 'INFO', upload_enabled: false },
            upload_settings: { max_interval_s: 120 },
            rwp_operation: 'deny',
            rwp_process_set_id: procs.id,
          },
        }),
      ).data;
      expect(made).toMatchObject({
        name: 'linux-servers',
        rwp_process_set_name: 'backup-tools',
        is_default: false,
        users: 0,
      });
      expect(await epoch()).toBe(before + 1);
      expect(
        await server.services.tdePolicies.profile(server.database.db, domainId, 'linux-servers'),
      ).toEqual({
        name: 'linux-servers',
        log_threshold: 'INFO',
        upload_enabled: false,
        upload_max_interval_s: 120,
        rwp_operation: 'deny',
        rwp_trusted_processes: [
          { directory: '/usr/bin', file: 'backup', sha256: [HASH2.toLowerCase(), HASH] },
          { directory: 'C:\\Tools' },
        ],
        syslog: { enabled: false, local: false, threshold: 'WARN', servers: [] },
        ldt_qos: {
          schedule: 'ANY_TIME',
          windows: [],
          rekey_rate_mbps: 0,
          cpu_percent: null,
          status_check_rate_s: 3600,
        },
      });
      expect(await server.services.tdePolicies.profile(server.database.db, domainId, 'none')).toBeNull();
      expect((await post(api.tdePolicy.profileCreate, { name: 'linux-servers' })).code).toBe(Code.CONFLICT);
      // The process set is in use by the profile.
      expect((await post(api.tdePolicy.elementDelete, { id: procs.id })).msg).toContain(
        'profile linux-servers',
      );
      const up = ok(
        await call(server, api.tdePolicy.profileUpdate, {
          token,
          body: { name: 'linux-servers', description: 'all', connect_timeout_s: 150 },
        }),
      ).data;
      expect(up).toMatchObject({
        description: 'all',
        connect_timeout_s: 150,
        rwp_operation: 'permit',
        rwp_process_set_name: null,
      });
      expect(
        ok(await call(server, api.tdePolicy.profileDetail, { token, query: { name: 'linux-servers' } })).data
          .connect_timeout_s,
      ).toBe(150);
      expect((await get(api.tdePolicy.profileDetail, { name: 'linux-servers' }, other.token)).code).toBe(
        Code.NOT_FOUND,
      );
      profileUsers.set('linux-servers', 3);
      const inUse = await post(api.tdePolicy.profileDelete, { name: 'linux-servers' });
      expect(inUse.code).toBe(Code.CONFLICT);
      expect(inUse.msg).toBe('Client profile linux-servers is used by 3 client(s) or group(s)');
      profileUsers.delete('linux-servers');
      ok(await call(server, api.tdePolicy.profileDelete, { token, body: { name: 'linux-servers' } }));
      expect((await get(api.tdePolicy.profileDetail, { name: 'linux-servers' })).code).toBe(Code.NOT_FOUND);
    });
  });

  describe('client profile syslog settings and LDT QoS', () => {
    // Made while the tests are collected: the refusal table below uses the certificates.
    const dir = mkdtempSync(join(tmpdir(), 'ksp-profile-pki-'));
    const pki = opensslTls(dir);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const udp = { name: 'syslog.example.test', port: 514, protocol: 'UDP', message_format: 'RFC5424' };
    const tls = () => ({
      name: '10.0.0.7',
      port: 6514,
      protocol: 'TLS',
      message_format: 'CEF',
      cacertificate: pki.ca.trim(),
      certificate: pki.clientCert.trim(),
      privatekey: pki.clientKey.trim(),
    });
    const syslog = (servers: object[], extra: object = {}) => ({
      name: 'p',
      syslog_settings: { servers, ...extra },
    });
    const qos = (ldt_qos: object) => ({ name: 'p', ldt_qos });
    const window = { start_weekday: 'FRIDAY', start_time: '22:00', end_weekday: 'MONDAY', end_time: '06:00' };

    it.each([
      [syslog([udp, { ...udp, port: 515 }, { ...udp, port: 516 }]), 'syslog_settings.servers'],
      [syslog([{ ...udp, port: 0 }]), 'port'],
      [syslog([{ ...udp, port: 65_536 }]), 'port'],
      [syslog([{ ...udp, protocol: 'SMTP' }]), 'protocol'],
      [syslog([{ ...udp, message_format: 'XML' }]), 'message_format'],
      [syslog([udp], { syslog_threshold: 'TRACE' }), 'syslog_threshold'],
      [
        syslog([{ ...udp, name: 'bad host!' }]),
        'syslog_settings.servers[0].name: must be a host name or an IP address',
      ],
      [
        syslog([udp, udp]),
        'syslog_settings.servers[1]: the server syslog.example.test port 514 is listed twice',
      ],
      [
        syslog([{ ...udp, cacertificate: 'x' }]),
        'syslog_settings.servers[0].cacertificate: only a TLS server takes certificates and a private key',
      ],
      [
        syslog([{ ...tls(), cacertificate: '' }]),
        'syslog_settings.servers[0].cacertificate: a TLS server needs the CA certificate (PEM) that signs it',
      ],
      [
        syslog([{ ...tls(), cacertificate: 'not a certificate' }]),
        'syslog_settings.servers[0].cacertificate: must be PEM certificate(s) (no BEGIN CERTIFICATE block)',
      ],
      [
        syslog([{ ...tls(), privatekey: '' }]),
        'syslog_settings.servers[0].privatekey: the client certificate and its private key go together',
      ],
      [
        syslog([{ ...tls(), privatekey: 'x' }]),
        'syslog_settings.servers[0].privatekey: must be the PEM private key of the client certificate',
      ],
      [
        qos({ ldt_qos_schedule: 'CUSTOM' }),
        'ldt_qos.qos_schedules: the CUSTOM schedule needs at least one time window',
      ],
      [qos({ ldt_qos_schedule: 'SOMETIMES' }), 'ldt_qos_schedule'],
      [
        qos({ ldt_qos_schedule: 'WEEKENDS', qos_schedules: [window] }),
        'ldt_qos.qos_schedules: time windows are for the CUSTOM and CUSTOM_WITH_OVERWRITE schedules only',
      ],
      [
        qos({ ldt_qos_schedule: 'CUSTOM', qos_schedules: [{ ...window, start_time: '24:00' }] }),
        'start_time',
      ],
      [
        qos({ ldt_qos_schedule: 'CUSTOM', qos_schedules: [{ ...window, start_weekday: 'FUNDAY' }] }),
        'start_weekday',
      ],
      [
        qos({
          ldt_qos_schedule: 'CUSTOM',
          qos_schedules: [{ ...window, end_weekday: 'FRIDAY', end_time: '22:00' }],
        }),
        'ldt_qos.qos_schedules[0]: the window must not end where it starts',
      ],
      [qos({ rekey_rate_mbps: 32_768 }), 'rekey_rate_mbps'],
      [qos({ rekey_rate_mbps: null, cpu_percent: 101 }), 'cpu_percent'],
      [
        qos({ rekey_rate_mbps: 10, cpu_percent: 50 }),
        'ldt_qos: give exactly one of rekey_rate_mbps (MB/s) and cpu_percent (%)',
      ],
      [
        qos({ rekey_rate_mbps: null }),
        'ldt_qos: give exactly one of rekey_rate_mbps (MB/s) and cpu_percent (%)',
      ],
      [qos({ ldt_qos_status_check_rate: 599 }), 'ldt_qos_status_check_rate'],
      [qos({ ldt_qos_status_check_rate: 86_401 }), 'ldt_qos_status_check_rate'],
    ])('refuses bad syslog or QoS settings naming the field and the rule (%#)', async (body, message) => {
      const res = await post(api.tdePolicy.profileCreate, body);
      expect(res.code, message).toBe(Code.INVALID);
      expect(res.msg).toContain(message);
    });

    it('answers the syslog and QoS errors in Chinese too', async () => {
      const zh = (body: object) =>
        callUnchecked(server, api.tdePolicy.profileCreate, {
          token,
          body,
          headers: { 'accept-language': 'zh-CN' },
        });
      expect((await zh(syslog([{ ...udp, name: 'bad host!' }]))).msg).toBe(
        'syslog_settings.servers[0].name：必须是主机名或 IP 地址',
      );
      expect((await zh(qos({ rekey_rate_mbps: null }))).msg).toBe(
        'ldt_qos：rekey_rate_mbps（MB/s）与 cpu_percent（%）须且只能提供一个',
      );
    });

    it('stores the TLS client key sealed, never answers it, and hands it to the agent wrapped', async () => {
      const before = await epoch();
      const made = ok(
        await call(server, api.tdePolicy.profileCreate, {
          token,
          body: {
            name: 'syslog-profile',
            logging: { syslog_enabled: true },
            syslog_settings: { local: true, syslog_threshold: 'INFO', servers: [udp, tls()] },
            ldt_qos: {
              ldt_qos_schedule: 'CUSTOM',
              qos_schedules: [window],
              rekey_rate_mbps: null,
              cpu_percent: 40,
              ldt_qos_status_check_rate: 900,
            },
          } as never,
        }),
      ).data;
      expect(await epoch()).toBe(before + 1);
      expect(made.syslog_settings).toEqual({
        local: true,
        syslog_threshold: 'INFO',
        servers: [
          { ...udp, cacertificate: '', certificate: '', has_private_key: false },
          { ...tls(), privatekey: undefined, has_private_key: true },
        ],
      });
      expect(JSON.stringify(made)).not.toContain('PRIVATE KEY');
      expect(made.ldt_qos).toEqual({
        ldt_qos_schedule: 'CUSTOM',
        qos_schedules: [window],
        rekey_rate_mbps: null,
        cpu_percent: 40,
        ldt_qos_status_check_rate: 900,
      });
      const detail = ok(
        await call(server, api.tdePolicy.profileDetail, { token, query: { name: 'syslog-profile' } }),
      ).data;
      expect(JSON.stringify(detail)).not.toContain('PRIVATE KEY');
      const listed = ok(
        await call(server, api.tdePolicy.profileList, { token, query: { page: 1, page_size: 50 } }),
      ).data.data;
      expect(JSON.stringify(listed)).not.toContain('PRIVATE KEY');
      // The row holds the key sealed, not in clear.
      const stored = async () =>
        (
          await server.database.db
            .selectFrom('tde_profile')
            .select('settings')
            .where('name', '=', 'syslog-profile')
            .executeTakeFirstOrThrow()
        ).settings;
      const keyBody = pki.clientKey.split('\n')[1]!;
      expect(await stored()).not.toContain('PRIVATE KEY');
      expect(await stored()).not.toContain(keyBody);
      expect(await stored()).toContain('sealed_privatekey');
      // No audit record or detail carries it either.
      const audits = await server.database.db.selectFrom('audit_log').select(['details', 'target']).execute();
      expect(JSON.stringify(audits)).not.toContain(keyBody);

      // Without a recipient the key stays out; with one it is wrapped, and opens to the PEM.
      const plain = await server.services.tdePolicies.profile(server.database.db, domainId, 'syslog-profile');
      expect(plain?.syslog).toMatchObject({ enabled: true, local: true, threshold: 'INFO' });
      expect(plain?.syslog?.servers[1]).toEqual({
        name: '10.0.0.7',
        port: 6514,
        protocol: 'TLS',
        message_format: 'CEF',
        cacertificate: pki.ca.trim(),
        certificate: pki.clientCert.trim(),
      });
      expect(plain?.ldt_qos).toEqual({
        schedule: 'CUSTOM',
        windows: [window],
        rekey_rate_mbps: null,
        cpu_percent: 40,
        status_check_rate_s: 900,
      });
      let cek: Buffer | undefined;
      const wrapped = await server.services.tdePolicies.profile(
        server.database.db,
        domainId,
        'syslog-profile',
        (id, material) => {
          cek = Buffer.from(material);
          return { id, name: id, version: 1, algorithm: 'AES-256', alg: 'RSA-OAEP-256', wrapped: 'stub' };
        },
      );
      const secret = wrapped?.syslog?.servers[1]?.privatekey;
      expect(secret?.cek.id).toBe('syslog:1');
      expect(wrapped?.syslog?.servers[0]?.privatekey).toBeUndefined();
      const decipher = createDecipheriv('aes-256-gcm', cek!, Buffer.from(secret!.iv, 'base64'));
      decipher.setAAD(Buffer.from('syslog:1'));
      decipher.setAuthTag(Buffer.from(secret!.tag, 'base64'));
      const pem = Buffer.concat([decipher.update(Buffer.from(secret!.data, 'base64')), decipher.final()]);
      expect(pem.toString('utf8')).toBe(pki.clientKey.trim());

      // An update without the key keeps it (same server name and port); "" clears it.
      const kept = ok(
        await call(server, api.tdePolicy.profileUpdate, {
          token,
          body: {
            name: 'syslog-profile',
            logging: { syslog_enabled: true },
            syslog_settings: { servers: [{ ...tls(), privatekey: undefined }] },
          } as never,
        }),
      ).data;
      expect(kept.syslog_settings.servers[0]?.has_private_key).toBe(true);
      expect(kept.ldt_qos.ldt_qos_schedule).toBe('ANY_TIME');
      const cleared = ok(
        await call(server, api.tdePolicy.profileUpdate, {
          token,
          body: {
            name: 'syslog-profile',
            syslog_settings: { servers: [{ ...tls(), certificate: '', privatekey: '' }] },
          } as never,
        }),
      ).data;
      expect(cleared.syslog_settings.servers[0]?.has_private_key).toBe(false);
      expect(await stored()).not.toContain('sealed_privatekey":"');
      // Another domain cannot read it.
      expect((await get(api.tdePolicy.profileDetail, { name: 'syslog-profile' }, other.token)).code).toBe(
        Code.NOT_FOUND,
      );
      ok(await call(server, api.tdePolicy.profileDelete, { token, body: { name: 'syslog-profile' } }));
    });
  });

  function sets_placeholder() {
    return '00000000-0000-4000-8000-000000000001';
  }
});
