import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCalls, api, Code, ROOT_DOMAIN, tokensOf } from '@ksp/contracts';
import { call, initialize, login, roleIdByName, startServer, type TestServer } from '../../test/harness.js';
import { userWithRole } from '../../test/fixtures.js';

const PASSWORD = 'Kinds-Pass-1';

/**
 * Token kinds keep their scope for life: sub-console (kadp, sms) and application tokens
 * stay what they are through refresh and domain switch, never reach the management API,
 * and never mint secrets or other tokens.
 */
describe('token kinds', () => {
  let server: TestServer;
  let admin: string;
  let adminId: string;
  let auditorRole: string;
  let operatorRole: string;

  beforeAll(async () => {
    server = await startServer('sqlite');
    ({ token: admin } = await initialize(server));
    adminId = (await call(server, api.user.info, { token: admin })).data.userinfo.id;
    auditorRole = await roleIdByName(server.database.db, 'Auditor');
    operatorRole = await roleIdByName(server.database.db, 'Operator');
    const fin = await call(server, api.domain.create, { token: admin, body: { name: 'finance' } });
    await call(server, api.user.domainAddUser, {
      token: admin,
      body: { domain_id: fin.data.id, user_ids: [adminId] },
    });
  });
  afterAll(async () => server?.close());

  async function expectConfined(token: string, label: string) {
    const create = await call(server, api.key.create, {
      token,
      body: { name: `k-${label}-${Date.now()}`, algorithm: 'AES-256', usage_mask: 0xc },
    });
    expect(create.code, `${label}: key/create`).toBe(Code.FORBIDDEN);
    const mkUser = await call(server, api.user.create, {
      token,
      body: {
        username: `evil-${label}`,
        password: PASSWORD,
        email: 'e@example.test',
        role_ids: [operatorRole],
      },
    });
    expect(mkUser.code, `${label}: user/create`).toBe(Code.FORBIDDEN);
    const secret = await call(server, api.user.updateSecret, { token, body: {} });
    expect(secret.code, `${label}: update-secret`).toBe(Code.FORBIDDEN);
    const kadp = await call(server, api.user.kadpToken, { token });
    expect(kadp.code, `${label}: kadp_token`).toBe(Code.FORBIDDEN);
  }

  for (const kind of ['kadp', 'sms'] as const) {
    it(`a ${kind} token stays a ${kind} token through refresh and domain switch`, async () => {
      const minted = await call(server, kind === 'kadp' ? api.user.kadpToken : api.user.ssmToken, {
        token: await login(server, 'admin', 'Admin-Pass-1'),
      });
      expect(minted.code).toBe(0);
      await expectConfined(minted.data.token, kind);
      const refreshed = await call(server, api.token.refresh, { token: minted.data.token });
      expect(refreshed.code).toBe(0);
      await expectConfined(refreshed.data, `${kind}-refreshed`);
      const switched = await call(server, api.user.switchDomain, {
        token: refreshed.data,
        body: { domain_name: 'finance' },
      });
      expect(switched.code).toBe(0);
      // The menu answered with the switch is the scoped token's, not a full console's.
      expect(
        switched.data.userinfo.permissions.every((p) =>
          p.startsWith(kind === 'kadp' ? 'kadp:' : 'credential:'),
        ),
      ).toBe(true);
      await expectConfined(switched.data.token, `${kind}-switched`);
      const trail = await server.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'token.refresh')
        .execute();
      expect(trail.map((r) => JSON.parse(r.details) as { token_kind: string })).toContainEqual({
        token_kind: kind,
      });
    });
  }

  it("a TDE or RDM sub-console token does its own area's work, and nothing of the other's", async () => {
    const session = await login(server, 'admin', 'Admin-Pass-1');
    const tde = await call(server, api.user.tdeToken, { token: session });
    const rdm = await call(server, api.user.rdmToken, { token: session });
    expect(tde.code, tde.msg).toBe(0);
    expect(rdm.code, rdm.msg).toBe(0);
    const set = await call(server, api.tdePolicy.elementCreate, {
      token: tde.data.token,
      body: { kind: 'user', name: 'tde-token-set', users: [{ uid: 1000 }] } as never,
    });
    expect(set.code, set.msg).toBe(0);
    const page = { page: 1, page_size: 10 };
    expect((await call(server, api.tdeClient.list, { token: tde.data.token, query: page })).code).toBe(0);
    expect((await call(server, api.tdePolicy.policyList, { token: tde.data.token, query: page })).code).toBe(
      0,
    );
    expect((await call(server, api.rdmClient.list, { token: rdm.data.token, query: page })).code).toBe(0);
    expect((await call(server, api.rdmPolicy.elementList, { token: rdm.data.token, query: page })).code).toBe(
      0,
    );
    // Each is confined to its own sub-console.
    expect((await call(server, api.rdmClient.list, { token: tde.data.token, query: page })).code).toBe(
      Code.FORBIDDEN,
    );
    expect((await call(server, api.tdeClient.list, { token: rdm.data.token, query: page })).code).toBe(
      Code.FORBIDDEN,
    );
    await expectConfined(tde.data.token, 'cte');
    await expectConfined(rdm.data.token, 'rdm');
  });

  it('an application token reaches only the crypto API and key reads, with its role', async () => {
    const adminSession = await login(server, 'admin', 'Admin-Pass-1');
    // An administrator's secret, restricted to the Auditor role.
    const secret = await call(server, api.user.updateSecret, {
      token: adminSession,
      body: { role_id: auditorRole },
    });
    expect(secret.code).toBe(0);
    const app = await call(server, api.user.appLogin, {
      body: { username: 'admin', app_secret: secret.data.app_secret },
    });
    expect(app.code).toBe(0);
    const token = app.data.token;
    await expectConfined(token, 'app');
    expect((await call(server, api.key.list, { token, query: { page: 1, page_size: 10 } })).code).toBe(0);
    expect((await call(server, api.crypto.noop, { token })).code).toBe(0);
    // Every management call is refused to it, whatever the user's own roles.
    const refused: string[] = [];
    for (const def of allCalls) {
      if (def.access === 'public' || tokensOf(def).includes('app')) continue;
      const res = await server.app.inject({
        method: def.method,
        url: def.path,
        headers: { token, 'content-type': 'application/json' },
        payload: def.method === 'GET' ? undefined : '{}',
      });
      const code = res.json<{ code: number }>().code;
      if (code !== Code.FORBIDDEN) refused.push(`${def.method} ${def.path}: ${code}`);
    }
    expect(refused).toEqual([]);
    // Auditor: it may read keys but not use them (the role narrows the administrator's grants).
    const adminKey = await call(server, api.key.create, {
      token: adminSession,
      body: { name: 'app-target', algorithm: 'AES-256', usage_mask: 0xc },
    });
    const enc = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: adminKey.data.id, plaintext: 'aGk=' },
    });
    expect(enc.code).toBe(Code.FORBIDDEN);
    // Refresh keeps it an application token.
    const refreshed = await call(server, api.token.refresh, { token });
    await expectConfined(refreshed.data, 'app-refreshed');
  });

  it('refuses a secret whose role grants more than its user holds', async () => {
    const adminSession = await login(server, 'admin', 'Admin-Pass-1');
    // The fixture expects the user's creation to succeed.
    const auditor = await userWithRole(server, adminSession, {
      role: 'Auditor',
      username: 'aud',
      password: PASSWORD,
    });
    const tooWide = await call(server, api.user.updateSecret, {
      token: auditor.token,
      body: { role_id: operatorRole },
    });
    expect(tooWide.code).toBe(Code.INVALID);
    expect(tooWide.msg).toContain('Operator');
  });

  it('app-login obeys lockout, and MFA does not apply to it (documented)', async () => {
    const adminSession = await login(server, 'admin', 'Admin-Pass-1');
    const made = await call(server, api.user.create, {
      token: adminSession,
      body: {
        username: 'robot',
        password: PASSWORD,
        email: 'r@example.test',
        role_ids: [operatorRole],
        must_change_password: false,
      },
    });
    const secret = await call(server, api.user.sendSdkUser, {
      token: adminSession,
      body: { id: made.data.id },
    });
    const settings = await call(server, api.config.list, {
      token: adminSession,
      query: { page: 1, page_size: 20 },
    });
    const mfa = settings.data.data.find((e) => e.key === 'MFA')!.id;
    const mfaOn = await call(server, api.config.edit, { token: adminSession, body: { id: mfa, value: '1' } });
    expect(mfaOn.code).toBe(0);
    const withMfa = await call(server, api.user.appLogin, {
      body: { username: 'robot', app_secret: secret.data.app_secret },
    });
    expect(withMfa.code).toBe(0);
    await call(server, api.config.edit, { token: adminSession, body: { id: mfa, value: '0' } });
    // Wrong secrets count toward the password policy's lockout (5 attempts by default).
    const policy = await call(server, api.passwordPolicy.get, { token: adminSession });
    for (let i = 0; i < policy.data.max_failed_attempts; i++) {
      const wrong = await call(server, api.user.appLogin, {
        body: { username: 'robot', app_secret: 'ksp_wrong' },
      });
      expect(wrong.code).toBe(Code.BAD_CREDENTIALS);
    }
    const locked = await call(server, api.user.appLogin, {
      body: { username: 'robot', app_secret: secret.data.app_secret },
    });
    expect(locked.code).toBe(Code.ACCOUNT_LOCKED);
  });

  it('a bodyless logout ends the session; a bodyless refresh works', async () => {
    const token = await login(server, 'admin', 'Admin-Pass-1');
    const refreshed = await server.app.inject({
      method: 'POST',
      url: api.token.refresh.path,
      headers: { token },
    });
    const next = refreshed.json<{ code: number; data: string }>().data;
    expect(refreshed.json<{ code: number }>().code).toBe(0);
    const out = await server.app.inject({
      method: 'POST',
      url: api.user.logout.path,
      headers: { token: next },
    });
    expect(out.json<{ code: number }>().code).toBe(0);
    expect((await call(server, api.user.info, { token: next })).status).toBe(401);
  });

  it('sub-console tokens end with the console session they came from, and live on through its refresh', async () => {
    const works = async (token: string) => (await call(server, api.user.info, { token })).status === 200;
    const mint = async (token: string, kind: 'kadp' | 'sms') => {
      const minted = await call(server, kind === 'kadp' ? api.user.kadpToken : api.user.ssmToken, { token });
      expect(minted.code).toBe(0);
      return minted.data.token;
    };
    const refresh = async (token: string) => {
      const next = await call(server, api.token.refresh, { token });
      expect(next.code).toBe(0);
      return next.data;
    };
    const consoleA = await login(server, 'admin', 'Admin-Pass-1');
    const consoleB = await login(server, 'admin', 'Admin-Pass-1');
    const kadpA = await mint(consoleA, 'kadp');
    const smsA = await mint(consoleA, 'sms');
    const kadpB = await mint(consoleB, 'kadp');
    // The console token refreshed: its sub-console tokens keep working; a refreshed
    // sub-console token stays bound to the same console session.
    const consoleA2 = await refresh(consoleA);
    expect(await works(consoleA)).toBe(false);
    expect(await works(kadpA)).toBe(true);
    const kadpA2 = await refresh(kadpA);
    expect(await works(kadpA2)).toBe(true);
    // Signing out of A ends A's sub-console tokens, not those of B (same user, other session).
    expect((await call(server, api.user.logout, { token: consoleA2 })).code).toBe(0);
    expect(await works(kadpA2)).toBe(false);
    expect(await works(smsA)).toBe(false);
    expect(await works(kadpB)).toBe(true);
    // A domain switch of the console session ends the tokens handed out for the domain it left.
    const switched = await call(server, api.user.switchDomain, {
      token: consoleB,
      body: { domain_name: 'finance' },
    });
    expect(switched.code).toBe(0);
    expect(await works(kadpB)).toBe(false);
    // A switched sub-console token still ends with its console session.
    const kadpC = await mint(switched.data.token, 'kadp');
    const kadpC2 = await call(server, api.user.switchDomain, {
      token: kadpC,
      body: { domain_name: ROOT_DOMAIN },
    });
    expect(kadpC2.code).toBe(0);
    expect(await works(kadpC2.data.token)).toBe(true);
    expect((await call(server, api.user.logout, { token: switched.data.token })).code).toBe(0);
    expect(await works(kadpC2.data.token)).toBe(false);
  });

  it('unbinding the UKEY of an unknown user answers 4040', async () => {
    const res = await call(server, api.user.unbindUkey, {
      token: await login(server, 'admin', 'Admin-Pass-1'),
      body: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(res.code).toBe(Code.NOT_FOUND);
  });

  it('the OpenAPI description marks optional bodies optional and says who may call', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { description?: string; requestBody?: { required?: boolean } }>>;
    }>();
    for (const def of [api.user.logout, api.token.refresh, api.user.kadpToken, api.user.ssmToken]) {
      expect(doc.paths[def.path]!.post!.requestBody!.required, def.path).toBe(false);
    }
    expect(doc.paths[api.user.create.path]!.post!.requestBody!.required).toBe(true);
    expect(doc.paths[api.config.list.path]!.get!.description).toContain('system scope');
    expect(doc.paths[api.crypto.encrypt.path]!.post!.description).toContain('app');
  });
});
