import { describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import {
  ADMIN,
  call,
  encodeUsername,
  engines,
  hashForLogin,
  login,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

describe.each(await engines())('sign-in and sessions on %s', (engine) => {
  let server: TestServer;
  let token: string;
  signedInServer(engine, (started) => ({ server, token } = started), {
    each: true,
    env: { KSP_SESSION_IDLE_SECONDS: '600', KSP_SESSION_MAX_SECONDS: '3600' },
  });

  it('signs in with the encoded username and client-hashed password, returning user info and menu', async () => {
    const res = await call(server, api.user.login, {
      body: {
        username: encodeUsername(`  ${ADMIN.username} `),
        password: await hashForLogin(ADMIN.password),
      },
    });
    expect(res.code).toBe(0);
    expect(res.data.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.data.userinfo).toMatchObject({
      name: 'admin',
      domain: 'root',
      domains: ['root'],
      has_domains: false,
    });
    expect(res.data.userinfo.session).toEqual({ idle_seconds: 600, max_seconds: 3600, refresh_seconds: 300 });
    expect(res.data.menu.map((m) => m.path)).toEqual([
      '/console/dashboard',
      '/console/product',
      '/console/access',
      '/console/key',
      '/console/key/detail/:id',
      '/console/kmip',
      '/console/cert',
      '/console/log',
      '/console/setting',
      '/cte',
      '/rdm',
      '/kms',
      '/credential',
      '/kadp',
    ]);
    expect(res.data.menu[9]).toMatchObject({ component: '#', redirect: '/cte/clients/main' });
    expect(res.data.menu[10]).toMatchObject({ component: '#', redirect: '/rdm/clients/main' });
    expect(res.data.menu.at(-2)).toMatchObject({ component: '#', redirect: '/credential/cred/index' });
    expect(res.data.menu.at(-1)).toMatchObject({ component: '#', redirect: '/kadp/clients' });
    expect(res.data.menu[8]).toMatchObject({ component: '#', redirect: '/console/setting/domain' });
    expect(res.headers.version).toBe('v1.9.0');
  });

  it('never says which part was wrong, and counts failures honestly', async () => {
    const wrongPw = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin('nope') },
    });
    const noUser = await call(server, api.user.login, {
      body: { username: encodeUsername('ghost'), password: await hashForLogin('nope') },
    });
    const typedPw = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: ADMIN.password },
    });
    const zh = await call(server, api.user.login, {
      body: { username: 'not base64!', password: 'x' },
      headers: { cookie: 'language=zh' },
    });
    for (const r of [wrongPw, noUser, typedPw])
      expect(r).toMatchObject({ code: Code.BAD_CREDENTIALS, msg: 'Incorrect username or password' });
    expect(zh).toMatchObject({ code: Code.BAD_CREDENTIALS, msg: '用户名或密码错误' });
    const user = await server.database.db
      .selectFrom('app_user')
      .selectAll()
      .where('username', '=', 'admin')
      .executeTakeFirstOrThrow();
    expect(user.failed_login_count).toBe(2);
    expect(user.login_count).toBe(1);
    expect(user.last_failed_login_at).not.toBeNull();
    const audit = await server.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'user.login')
      .where('result', '=', 'failure')
      .execute();
    expect(audit.length).toBe(4);
  });

  it('records a failed sign-in under the decoded name, known or unknown, escaped and cut, and the log search finds it', async () => {
    const attempt = async (name: string) =>
      call(server, api.user.login, {
        body: { username: encodeUsername(name), password: await hashForLogin('nope') },
      });
    await attempt('ghost-user');
    await attempt(ADMIN.username);
    await attempt('evil\nname\u202e\u0007');
    await attempt('x'.repeat(300));
    const records = await server.database.db
      .selectFrom('audit_log')
      .select(['target', 'username', 'user_id', 'source'])
      .where('action', '=', 'user.login')
      .where('result', '=', 'failure')
      .orderBy('at')
      .orderBy('id')
      .execute();
    expect(records.map((r) => r.target)).toEqual([
      'ghost-user',
      ADMIN.username,
      'evil\\u{a}name\\u{202e}\\u{7}',
      `${'x'.repeat(127)}…`,
    ]);
    expect(records[0]).toMatchObject({ username: 'ghost-user', user_id: null, source: 'web' });
    expect(records[1]).toMatchObject({ username: ADMIN.username, source: 'web' });
    expect(records[1]!.user_id).not.toBeNull();
    // Not the Base64 the console sent.
    expect(records.some((r) => r.target === encodeUsername('ghost-user'))).toBe(false);
    // The log's search finds the name, in the text and as the user.
    for (const query of [{ q: 'ghost' }, { username: 'ghost-user' }]) {
      const found = await call(server, api.log.list, {
        token,
        query: { page: 1, page_size: 10, action: 'user.login', ...query },
      });
      expect(found.code, found.msg).toBe(0);
      expect(found.data.data.map((r) => r.target)).toEqual(['ghost-user']);
    }
  });

  it('locks the account after the allowed failed attempts (4002), even for the right password', async () => {
    for (let i = 0; i < 5; i++) {
      await call(server, api.user.login, {
        body: { username: encodeUsername('admin'), password: await hashForLogin('bad') },
      });
    }
    const locked = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin(ADMIN.password) },
    });
    expect(locked.code).toBe(Code.ACCOUNT_LOCKED);
    server.clock.advance(31 * 60);
    expect(await login(server, ADMIN.username, ADMIN.password)).toBeTruthy();
  });

  it("answers 4503 with no token when config MFA is '1' and the password is right", async () => {
    const list = await call(server, api.config.list, { token, query: { page: 1, page_size: 20 } });
    const mfa = list.data.data.find((e) => e.key === 'MFA')!;
    expect((await call(server, api.config.edit, { token, body: { id: mfa.id, value: '1' } })).code).toBe(0);
    const res = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin(ADMIN.password) },
    });
    expect(res).toMatchObject({ code: Code.UKEY_REQUIRED, data: null });
    const wrong = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin('bad') },
    });
    expect(wrong.code).toBe(Code.BAD_CREDENTIALS);
  });

  it('answers HTTP 401 for a missing or unknown token and 4604 once the session expired', async () => {
    const missing = await call(server, api.user.info);
    expect(missing.status).toBe(401);
    const unknown = await call(server, api.user.info, { token: 'x'.repeat(43) });
    expect(unknown.status).toBe(401);

    server.clock.advance(500);
    expect((await call(server, api.user.info, { token })).code).toBe(0); // activity resets the idle timer
    server.clock.advance(500);
    expect((await call(server, api.user.info, { token })).code).toBe(0);
    server.clock.advance(601);
    const idle = await call(server, api.user.info, { token });
    expect(idle).toMatchObject({ status: 200, code: Code.SESSION_EXPIRED });
    expect(idle.msg).toBe('Your identity information has expired. Please log in again!');
  });

  it('ends a session at the absolute limit, even through refreshes', async () => {
    let current = token;
    for (let i = 0; i < 7; i++) {
      server.clock.advance(500);
      const refreshed = await call(server, api.token.refresh, { token: current, body: {} });
      expect(refreshed.code).toBe(0);
      expect((await call(server, api.user.info, { token: current })).status).toBe(401);
      current = refreshed.data;
    }
    server.clock.advance(200);
    expect((await call(server, api.user.info, { token: current })).code).toBe(Code.SESSION_EXPIRED);
  });

  it('revokes the token at logout', async () => {
    expect((await call(server, api.user.logout, { token, body: {} })).code).toBe(0);
    expect((await call(server, api.user.info, { token })).status).toBe(401);
    const audit = await server.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'user.logout')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('ends a session on every node: at once where it was ended, within a second elsewhere', async () => {
    const other = await server.startNode();
    try {
      const session = await login(server, ADMIN.username, ADMIN.password);
      expect((await call(other, api.user.info, { token: session })).code).toBe(0); // cached there now
      expect((await call(server, api.user.logout, { token: session, body: {} })).code).toBe(0);
      expect((await call(server, api.user.info, { token: session })).status).toBe(401);
      server.clock.advance(1);
      expect((await call(other, api.user.info, { token: session })).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('switches to a domain the user belongs to with a new token, and refuses others', async () => {
    const created = await call(server, api.domain.create, {
      token,
      body: { name: 'finance', description: 'Finance team' },
    });
    expect(created.code).toBe(0);
    const notMember = await call(server, api.user.switchDomain, { token, body: { domain_name: 'nowhere' } });
    expect(notMember.code).toBe(Code.FORBIDDEN);
    // Creating a domain does not make its creator a member of it.
    const before = await call(server, api.user.info, { token });
    expect(before.data.userinfo).toMatchObject({ domains: ['root'], has_domains: false });
    const refused = await call(server, api.user.switchDomain, { token, body: { domain_name: 'finance' } });
    expect(refused.code).toBe(Code.FORBIDDEN);
    await call(server, api.user.domainAddUser, {
      token,
      body: { domain_id: created.data.id, user_ids: [before.data.userinfo.id] },
    });
    const info = await call(server, api.user.info, { token });
    expect(info.data.userinfo).toMatchObject({ domains: ['root', 'finance'], has_domains: true });
    const switched = await call(server, api.user.switchDomain, { token, body: { domain_name: 'finance' } });
    expect(switched.code).toBe(0);
    expect(switched.data.userinfo.domain).toBe('finance');
    expect(switched.data.token).not.toBe(token);
    expect((await call(server, api.user.info, { token })).status).toBe(401);
    const summary = await call(server, api.dashboard.summary, { token: switched.data.token });
    expect(summary.data.domain).toBe('finance');
    // Creating domains is a system setting: refused outside root.
    const fromFinance = await call(server, api.domain.create, {
      token: switched.data.token,
      body: { name: 'elsewhere' },
    });
    expect(fromFinance.code).toBe(Code.FORBIDDEN);
  });

  it('changes my password under the policy and ends my other sessions', async () => {
    const other = await login(server, ADMIN.username, ADMIN.password);
    const wrongOld = await call(server, api.user.updateMyPassword, {
      token,
      body: { old_password: 'nope', new_password: 'New-Pass-22' },
    });
    expect(wrongOld).toMatchObject({ code: Code.INVALID, msg: 'The current password is incorrect' });
    const weak = await call(server, api.user.updateMyPassword, {
      token,
      body: { old_password: ADMIN.password, new_password: 'weakpass' },
      lang: 'zh',
    });
    expect(weak.code).toBe(Code.INVALID);
    expect(weak.msg).toBe('密码不符合规则！（至少 1 个大写字母；至少 1 个数字）');
    const ok = await call(server, api.user.updateMyPassword, {
      token,
      body: { old_password: ADMIN.password, new_password: 'New-Pass-22' },
    });
    expect(ok.code).toBe(0);
    expect((await call(server, api.user.info, { token: other })).status).toBe(401);
    expect((await call(server, api.user.info, { token: ok.data.token })).code).toBe(0);
    await expect(login(server, ADMIN.username, ADMIN.password)).rejects.toThrow(/4001/);
    expect(await login(server, ADMIN.username, 'New-Pass-22')).toBeTruthy();
  });

  it('updates my e-mail and rejects a malformed one naming the field', async () => {
    const bad = await call(server, api.user.updateEmail, { token, body: { email: 'not-an-email' } });
    expect(bad).toMatchObject({ code: Code.INVALID, msg: 'email: must be a valid email' });
    const ok = await call(server, api.user.updateEmail, { token, body: { email: 'ops@example.test' } });
    expect(ok.code).toBe(0);
    expect((await call(server, api.user.info, { token })).data.userinfo.email).toBe('ops@example.test');
  });
});
