import { afterEach, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import {
  call,
  encodeUsername,
  engines,
  hashForLogin,
  initialize,
  startServer,
  type TestServer,
} from '../../test/harness.js';

const PASSWORD = 'Burst-Pass-1';

/** Parallel guesses: the lockout is one atomic decision, and sign-ins are rate limited. */
describe.each(await engines())('lockout under load on %s', (engine) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function victim(s: TestServer, token: string) {
    const role = (await call(s, api.role.list, { token, query: { page: 1, page_size: 20 } })).data.data.find(
      (r) => r.name === 'Operator',
    )!;
    await call(s, api.user.create, {
      token,
      body: {
        username: 'victim',
        password: PASSWORD,
        email: 'v@example.test',
        role_ids: [role.id],
        must_change_password: false,
      },
    });
  }

  const attempt = async (s: TestServer, password: string) =>
    call(s, api.user.login, {
      body: { username: encodeUsername('victim'), password: await hashForLogin(password) },
    });

  it('200 parallel guesses: the rate limit answers 429, the lockout counts exactly the allowed attempts, a right one inside is refused', async () => {
    // 40 a minute per username: 40 guesses reach the password check, 160 are turned away.
    server = await startServer(engine, { KSP_LOGIN_RATE_PER_USER: '40', KSP_LOGIN_RATE_PER_ADDRESS: '1000' });
    const s = server;
    const { token } = await initialize(s);
    await victim(s, token);
    const policy = (await call(s, api.passwordPolicy.get, { token })).data;
    const allowed = policy.max_failed_attempts;
    expect(allowed).toBeGreaterThan(0);
    const RIGHT = 30;
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) => attempt(s, i === RIGHT ? PASSWORD : `Wrong-Pass-${i}`)),
    );
    const limited = burst.filter((r) => r.status === 429);
    expect(limited).toHaveLength(160);
    expect(limited[0]!.headers['retry-after']).toBeDefined();
    const wrong = burst.filter((r, i) => i !== RIGHT && r.status === 200);
    expect(wrong.filter((r) => r.code === Code.BAD_CREDENTIALS)).toHaveLength(allowed);
    expect(wrong.filter((r) => r.code === Code.ACCOUNT_LOCKED)).toHaveLength(39 - allowed);
    const row = await s.database.db
      .selectFrom('app_user')
      .select(['failed_login_count', 'locked_until'])
      .where('username', '=', 'victim')
      .executeTakeFirstOrThrow();
    expect(Number(row.failed_login_count)).toBe(allowed);
    expect(row.locked_until).not.toBeNull();
    // The right password either came before the lock (then it reset the count, which the
    // exact count above rules out) or was refused once locked.
    expect(burst[RIGHT]!.code).toBe(Code.ACCOUNT_LOCKED);
  }, 180_000);

  it('rate limits sign-ins per username and per address: HTTP 429 with Retry-After', async () => {
    server = await startServer(engine, { KSP_LOGIN_RATE_PER_USER: '3', KSP_LOGIN_RATE_PER_ADDRESS: '6' });
    const s = server;
    await initialize(s);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await attempt(s, `Wrong-Pass-${i}`));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[3]).toMatchObject({ status: 429, code: 429, msg: 'Too many requests, retry later' });
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThan(0);
    // Other usernames from the same address still get through, until the address limit:
    // each is tried once, so only the address can turn them away.
    const others = [];
    for (let i = 0; i < 8; i++)
      others.push(
        (
          await call(s, api.user.login, {
            body: { username: encodeUsername(`someone-${i}`), password: await hashForLogin('x') },
          })
        ).status,
      );
    expect(others[0]).toBe(200);
    expect(others).toContain(429);
    expect(others.slice(others.indexOf(429)).every((st) => st === 429)).toBe(true);
    // The app-login and UKEY verify calls count too.
    const app = await call(s, api.user.appLogin, { body: { username: 'victim', app_secret: 'ksp_x' } });
    expect(app.status).toBe(429);
  }, 60_000);
});
