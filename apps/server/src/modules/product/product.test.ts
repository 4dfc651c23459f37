import { beforeAll, describe, expect, it } from 'vitest';
import { api, COMMUNITY_LIMITS, Code, type ProductTile } from '@ksp/contracts';
import { agentKeyAndCsr } from '../../test/agent.js';
import { call, engines, login, ok, roleIdByName, type TestServer } from '../../test/harness.js';
import { signedInWithBranch } from '../../test/fixtures.js';

const figure = (tile: ProductTile | undefined, name: string) =>
  tile?.figures.find((f) => f.name === name)?.value;

describe.each(await engines())('product page and sub-console tokens on %s', (engine) => {
  let server: TestServer;
  let admin: string;
  let tenant: { domainId: string; token: string };
  const agent = agentKeyAndCsr('product-agent');

  async function enrol(as: string, usage: 'kadp' | 'cte', type: 'kadp' | 'tde', name: string) {
    const reg = ok(
      await call(server, api.registrationToken.create, {
        token: as,
        body: { name: `reg-${name}`, usage, capacity: 0 },
      }),
    ).data;
    return ok(
      await call(server, api.client.enrol, {
        body: {
          token: reg.secret,
          csr: agent.csr,
          name,
          type,
          os: 'Linux',
          agent_version: '1.0.0',
          mac: '',
          host: `${name}.example`,
        },
      }),
    ).data;
  }

  const overview = async (token: string) =>
    ok(await call(server, api.product.overview, { token })).data.tiles;

  signedInWithBranch(engine, (started) => ({ server, token: admin, branch: tenant } = started));
  beforeAll(async () => {
    // Root domain: two KADP clients (one revoked), one TDE client, two keys.
    const a = await enrol(admin, 'kadp', 'kadp', 'app-one');
    await enrol(admin, 'kadp', 'kadp', 'app-two');
    ok(await call(server, api.client.revoke, { token: admin, body: { id: a.client_id } }));
    await enrol(admin, 'cte', 'tde', 'host-one');
    for (const name of ['k1', 'k2'])
      ok(
        await call(server, api.key.create, {
          token: admin,
          body: { name, algorithm: 'AES-256', usage_mask: 0xc },
        }),
      );
    // Tenant domain: one KADP client and one key of its own.
    await enrol(tenant.token, 'kadp', 'kadp', 'tenant-app');
    ok(
      await call(server, api.key.create, {
        token: tenant.token,
        body: { name: 'tk', algorithm: 'AES-256', usage_mask: 0xc },
      }),
    );
  });

  it("lists the five products in their order, with the caller's domain's counts and the licence state", async () => {
    const tiles = await overview(admin);
    expect(tiles.map((t) => t.product)).toEqual(['tde', 'kadp', 'kms', 'rdm', 'sms']);
    expect(tiles.map((t) => t.area)).toEqual(['cte', 'kadp', 'kms', 'rdm', 'credential']);
    const by = (p: string) => tiles.find((t) => t.product === p);
    expect(figure(by('kadp'), 'clients')).toBe(2);
    expect(figure(by('kadp'), 'healthy')).toBe(1);
    expect(figure(by('kadp'), 'revoked')).toBe(1);
    expect(figure(by('tde'), 'clients')).toBe(1);
    expect(figure(by('rdm'), 'clients')).toBe(0);
    // Keys as the key list counts them (the two made here and the domain CA's key pair).
    const keys = ok(
      await call(server, api.key.list, {
        token: admin,
        // The tiles count every key object, a certificate's key pair too.
        query: { page: 1, page_size: 10, certificate_keys: 'show' },
      }),
    ).data;
    expect(figure(by('kms'), 'keys')).toBe(keys.total);
    expect(keys.data.map((k) => k.name)).toEqual(expect.arrayContaining(['k1', 'k2']));
    expect(figure(by('sms'), 'credentials')).toBe(0);
    expect(figure(by('sms'), 'servers')).toBe(0);
    // Unlicensed: the community limit, and (root domain) the installation's use of it.
    expect(by('kadp')?.license).toEqual({
      feature: 'kadp_clients',
      state: 'community',
      total: COMMUNITY_LIMITS.kadp_clients,
      used: 3,
      not_after: null,
    });
    expect(tiles.every((t) => t.permitted)).toBe(true);
  });

  it("shows another domain only its own counts, never the installation's use", async () => {
    const tiles = await overview(tenant.token);
    const by = (p: string) => tiles.find((t) => t.product === p);
    expect(figure(by('kadp'), 'clients')).toBe(1);
    expect(figure(by('tde'), 'clients')).toBe(0);
    const keys = ok(
      await call(server, api.key.list, {
        token: tenant.token,
        query: { page: 1, page_size: 10, certificate_keys: 'show' },
      }),
    ).data;
    expect(keys.data.some((k) => k.name === 'k1')).toBe(false);
    expect(figure(by('kms'), 'keys')).toBe(keys.total);
    expect(tiles.every((t) => t.license.used === null)).toBe(true);
    expect(by('kadp')?.license.total).toBe(COMMUNITY_LIMITS.kadp_clients);
  });

  it("counts the installation's SMS servers on the SMS tile's licence, and refuses one over the limit", async () => {
    const server1 = async (as: string, name: string) => {
      const cred = ok(
        await call(server, api.credential.create, {
          token: as,
          body: { name: `${name}-root`, type: 'password', value: `${name}-Pass-1` },
        }),
      ).data;
      return call(server, api.sshServer.create, {
        token: as,
        body: { name, host: '127.0.0.1', port: 22, account: 'root', credential_id: cred.id },
      });
    };
    // The tenant's server counts against the installation's limit (community: 1).
    ok(await server1(tenant.token, 'tenant-web'));
    const sms = (await overview(admin)).find((t) => t.product === 'sms')!;
    expect(sms.license).toEqual({
      feature: 'sms_servers',
      state: 'community',
      total: COMMUNITY_LIMITS.sms_servers,
      used: 1,
      not_after: null,
    });
    expect(figure(sms, 'servers')).toBe(0); // the root domain's own
    const tenantSms = (await overview(tenant.token)).find((t) => t.product === 'sms')!;
    expect(figure(tenantSms, 'servers')).toBe(1);
    expect(tenantSms.license.used).toBeNull();
    const over = await server1(admin, 'root-web');
    expect(over.code).toBe(Code.STATE_FORBIDS);
    expect(over.msg).toBe('Licence limit reached: sms_servers is limited to 1');
  });

  it('disables the tiles whose area the caller cannot read, without their figures', async () => {
    const role = ok(
      await call(server, api.role.create, {
        token: admin,
        body: { name: 'product-and-keys', permissions: ['product:read', 'key:read'] },
      }),
    ).data;
    ok(
      await call(server, api.user.create, {
        token: admin,
        body: {
          username: 'viewer',
          password: 'Viewer-Pass-1',
          email: 'viewer@example.test',
          role_ids: [role.id],
          must_change_password: false,
        },
      }),
    );
    const viewer = await login(server, 'viewer', 'Viewer-Pass-1');
    const tiles = await overview(viewer);
    expect(tiles.filter((t) => t.permitted).map((t) => t.product)).toEqual(['kms']);
    expect(tiles.find((t) => t.product === 'kadp')?.figures).toEqual([]);
    // The token call refuses anyway.
    expect((await call(server, api.user.kadpToken, { token: viewer })).code).toBe(Code.FORBIDDEN);
    expect((await call(server, api.user.tdeToken, { token: viewer })).code).toBe(Code.FORBIDDEN);
    ok(await call(server, api.user.kmsToken, { token: viewer }));
    // An Auditor reads it (product:read) but an Operator too; a user without product:read does not.
    const noProduct = ok(
      await call(server, api.role.create, {
        token: admin,
        body: { name: 'keys-only', permissions: ['key:read'] },
      }),
    ).data;
    expect(noProduct.id).toBeTruthy();
    expect(await roleIdByName(server.database.db, 'Auditor')).toBeTruthy();
  });

  for (const kind of ['tde', 'rdm', 'kms'] as const) {
    const mint = { tde: api.user.tdeToken, rdm: api.user.rdmToken, kms: api.user.kmsToken }[kind];
    const area = { tde: 'cte', rdm: 'rdm', kms: 'key' }[kind];
    const path = { tde: '/cte', rdm: '/rdm', kms: '/kms' }[kind];

    it(`a ${kind} token carries only ${area}:* and never acts as a console session`, async () => {
      const minted = ok(await call(server, mint, { token: admin })).data.token;
      const info = ok(await call(server, api.user.info, { token: minted })).data;
      expect(info.userinfo.permissions.length).toBeGreaterThan(0);
      expect(info.userinfo.permissions.every((p) => p.startsWith(`${area}:`))).toBe(true);
      // Its menu is its own sub-console's only (a KMS token does not get the console's key page).
      expect(info.menu.every((m) => m.path === path || m.path.startsWith(`${path}/`))).toBe(true);
      const refused = [
        await call(server, api.user.list, { token: minted, query: { page: 1, page_size: 10 } }),
        await call(server, api.product.overview, { token: minted }),
        await call(server, api.client.list, { token: minted, query: { page: 1, page_size: 10 } }),
        await call(server, api.user.kadpToken, { token: minted }),
        await call(server, mint, { token: minted }),
        await call(server, api.user.updateSecret, { token: minted, body: {} }),
        await call(server, api.role.list, { token: minted, query: { page: 1, page_size: 10 } }),
      ];
      expect(refused.map((r) => r.code)).toEqual(refused.map(() => Code.FORBIDDEN));
      const keys = await call(server, api.key.list, { token: minted, query: { page: 1, page_size: 10 } });
      expect(keys.code).toBe(kind === 'kms' ? 0 : Code.FORBIDDEN);
      // Refresh keeps its kind.
      const refreshed = ok(await call(server, api.token.refresh, { token: minted })).data;
      expect(
        (await call(server, api.user.list, { token: refreshed, query: { page: 1, page_size: 10 } })).code,
      ).toBe(Code.FORBIDDEN);
      const trail = await server.database.db
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', `user.${kind === 'tde' ? 'cte' : kind}-token`)
        .execute();
      expect(trail.length).toBeGreaterThan(0);
    });
  }

  it('a KMS token lists only its domain’s keys', async () => {
    const minted = ok(await call(server, api.user.kmsToken, { token: tenant.token })).data.token;
    const keys = ok(
      await call(server, api.key.list, { token: minted, query: { page: 1, page_size: 10 } }),
    ).data;
    expect(keys.data.map((k) => k.name)).toContain('tk');
    expect(keys.data.map((k) => k.name)).not.toContain('k1');
  });
});
