import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allCalls,
  api,
  type Area,
  areaOf,
  builtInRoles,
  Code,
  scopeOf,
  systemAreas,
  tokensOf,
} from '@ksp/contracts';
import { call, initialize, roleIdByName, startServer, type TestServer } from '../../test/harness.js';

const CUSTOM = { name: 'Key reader', permissions: ['dashboard:read', 'key:read', 'token:read'] };
const roleSets: Record<string, readonly string[]> = {
  Administrator: builtInRoles.Administrator.permissions,
  Operator: builtInRoles.Operator.permissions,
  Auditor: builtInRoles.Auditor.permissions,
  [CUSTOM.name]: CUSTOM.permissions,
};

/**
 * Every route × every built-in role and a custom role × two domains: the guard allows
 * exactly what the role's permissions say, less the system scope outside root.
 */
describe('authorization matrix', () => {
  let server: TestServer;
  const users: Record<string, { id: string }> = {};
  const domains: Record<string, string> = {};

  beforeAll(async () => {
    server = await startServer('sqlite');
    const { token } = await initialize(server);
    const db = server.database.db;
    domains.root = (
      await db.selectFrom('domain').select('id').where('name', '=', 'root').executeTakeFirstOrThrow()
    ).id;
    const fin = await call(server, api.domain.create, { token, body: { name: 'finance' } });
    domains.finance = fin.data.id;
    const custom = await call(server, api.role.create, { token, body: CUSTOM });
    for (const role of Object.keys(roleSets)) {
      const roleId = role === CUSTOM.name ? custom.data.id : await roleIdByName(db, role);
      const created = await call(server, api.user.create, {
        token,
        body: {
          username: `u-${role.replace(/\W/g, '').toLowerCase()}`,
          password: 'Matrix-Pass-1',
          email: 'm@example.test',
          role_ids: [roleId],
          domain_ids: [domains.root, domains.finance],
          must_change_password: false,
        },
      });
      users[role] = { id: created.data.id };
    }
  });
  afterAll(async () => server?.close());

  /** A fresh session (calls like logout and refresh end the one they are made with). */
  async function sessionFor(role: string, domain: string): Promise<string> {
    return server.database.db.transaction().execute(async (trx) => {
      const { token } = await server.services.sessions.issue(trx, {
        userId: users[role]!.id,
        domainId: domains[domain]!,
        ip: '127.0.0.1',
      });
      return token;
    });
  }

  for (const domain of ['root', 'finance']) {
    for (const role of Object.keys(roleSets)) {
      it(`${role} in ${domain}`, async () => {
        const verdicts: string[] = [];
        for (const def of allCalls) {
          const token = await sessionFor(role, domain);
          const res = await server.app.inject({
            method: def.method,
            url: def.path,
            headers: { token, 'content-type': 'application/json' },
            payload: def.method === 'GET' ? undefined : '{}',
          });
          // A download call answers its file when allowed, the envelope when refused.
          const file = def.download !== undefined && !res.body.startsWith('{"code"');
          const code = res.statusCode !== 200 ? res.statusCode : file ? 0 : res.json<{ code: number }>().code;
          const denied = code === Code.FORBIDDEN;
          // Outside root, system-scope calls and the permissions of system areas never apply.
          const outsideRoot = domain !== 'root';
          // Calls for other token kinds only (an application's credential read) refuse a session.
          const expectedDenied =
            def.access !== 'public' &&
            (!tokensOf(def).includes('session') ||
              (outsideRoot && scopeOf(def) === 'system') ||
              (def.access !== 'session' &&
                (!roleSets[role]!.includes(def.access) ||
                  (outsideRoot && systemAreas.has(areaOf(def.access) as Area)))));
          if (denied !== expectedDenied)
            verdicts.push(
              `${def.method} ${def.path}: got ${code}, expected ${expectedDenied ? 'deny' : 'allow'}`,
            );
          expect(res.statusCode).toBeLessThan(500);
        }
        expect(verdicts).toEqual([]);
      });
    }
  }

  it('lets Auditors read alarms but not change them, and keeps Operators out of them', async () => {
    const codes = async (role: string) => {
      const token = await sessionFor(role, 'finance');
      const read = await call(server, api.alarm.list, { token, query: { page: 1, page_size: 10 } });
      const summary = await call(server, api.alarm.summary, { token });
      const rules = await call(server, api.alarm.ruleList, { token, query: { page: 1, page_size: 10 } });
      const create = await call(server, api.alarm.ruleCreate, {
        token,
        body: { name: `by-${role}`, action: 'user.login', threshold: 3, interval_seconds: 60 },
      });
      const ack = await call(server, api.alarm.acknowledge, {
        token,
        body: { ids: ['00000000-0000-7000-8000-000000000000'] },
      });
      return [read.code, summary.code, rules.code, create.code, ack.code];
    };
    expect(await codes('Administrator')).toEqual([0, 0, 0, 0, Code.NOT_FOUND]);
    expect(await codes('Auditor')).toEqual([0, 0, 0, Code.FORBIDDEN, Code.FORBIDDEN]);
    expect(await codes('Operator')).toEqual(Array(5).fill(Code.FORBIDDEN));
    expect(await codes(CUSTOM.name)).toEqual(Array(5).fill(Code.FORBIDDEN));
  });

  it('shows nothing of one domain from another', async () => {
    const rootAdmin = await sessionFor('Administrator', 'root');
    await call(server, api.registrationToken.create, {
      token: rootAdmin,
      body: { name: 'root-only', usage: 'cte' },
    });
    const finAdmin = await sessionFor('Administrator', 'finance');
    const fromFinance = await call(server, api.registrationToken.list, {
      token: finAdmin,
      query: { page: 1, page_size: 100 },
    });
    expect(fromFinance.data.data.map((t) => t.name)).not.toContain('root-only');
    const fromRoot = await call(server, api.registrationToken.list, {
      token: await sessionFor('Administrator', 'root'),
      query: { page: 1, page_size: 100 },
    });
    expect(fromRoot.data.data.map((t) => t.name)).toContain('root-only');
    const id = fromRoot.data.data.find((t) => t.name === 'root-only')!.id;
    const crossDelete = await call(server, api.registrationToken.delete, {
      token: await sessionFor('Administrator', 'finance'),
      body: { ids: [id] },
    });
    expect(crossDelete.code).toBe(Code.NOT_FOUND);
    // Credentials (SMS): another domain's administrator sees none, and every call on one is "not found".
    const secret = await call(server, api.credential.create, {
      token: rootAdmin,
      body: { name: 'root-cred', type: 'password', value: 'Root-Only-Secret' },
    });
    expect(secret.code).toBe(0);
    const fin = await sessionFor('Administrator', 'finance');
    const finCreds = await call(server, api.credential.list, {
      token: fin,
      query: { page: 1, page_size: 100 },
    });
    expect(finCreds.data.data.map((c) => c.name)).not.toContain('root-cred');
    const credId = secret.data.id;
    const crossCodes = [
      (await call(server, api.credential.detail, { token: fin, query: { id: credId } })).code,
      (await call(server, api.credential.update, { token: fin, body: { id: credId, description: 'x' } }))
        .code,
      (await call(server, api.credential.addVersion, { token: fin, body: { id: credId, value: 'x' } })).code,
      (
        await call(server, api.credential.reveal, {
          token: fin,
          body: { id: credId, password: 'Matrix-Pass-1' },
        })
      ).code,
      (await call(server, api.credential.delete, { token: fin, body: { ids: [credId] } })).code,
    ];
    expect(crossCodes).toEqual(Array(5).fill(Code.NOT_FOUND));
    const revealed = await call(server, api.credential.reveal, {
      token: await sessionFor('Administrator', 'root'),
      body: { id: credId, password: 'Matrix-Pass-1' },
    });
    expect(revealed.data.value).toBe('Root-Only-Secret');
    const summary = await call(server, api.dashboard.summary, {
      token: await sessionFor('Auditor', 'finance'),
    });
    expect(summary.data.recent.every((r) => r.domain === 'finance')).toBe(true);
  });
});
