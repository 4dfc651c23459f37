import { describe, expect, it } from 'vitest';
import { api, Code, Usage, type LicenseFeature } from '@ksp/contracts';
import { agentKeyAndCsr } from '../../test/agent.js';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { mintLicense, testLicenseKeys } from '../../test/license.js';
import type { KspServer } from '../../app.js';

const DAY = 86_400_000;

/**
 * Every counted limit holds under concurrent creations (issue 31, item 9): the check is made in
 * the transaction that inserts, so parallel calls (and calls on two nodes) end at the limit.
 */
describe.each(await engines())('counted limits under concurrency on %s', (engine) => {
  const keys = testLicenseKeys();
  let server: TestServer;
  let token: string;
  const csr = agentKeyAndCsr('quota-agent').csr;

  signedInServer(engine, (started) => ({ server, token } = started), {
    env: { KSP_LICENSE_TEST_PUBLIC_KEY: keys.publicKeyBase64 },
  });

  const usage = async (feature: LicenseFeature) => {
    const list = await call(server, api.license.list, { token });
    return list.data.features.find((f) => f.feature === feature)!;
  };
  const activate = async (id: string, features: Partial<Record<LicenseFeature, number>>) => {
    const lock = (await call(server, api.license.lockdata, { token })).data.lock_code;
    const now = server.clock.now.getTime();
    const res = await call(server, api.license.activate, {
      token,
      body: {
        license: mintLicense(
          {
            id,
            customer: 'Quota race',
            lock_code: lock,
            bind_type: 'instance',
            features,
            not_before: new Date(now - DAY).toISOString(),
            not_after: new Date(now + 30 * DAY).toISOString(),
            issued_at: new Date(now - DAY).toISOString(),
          },
          keys.privateKey,
        ),
      },
    });
    expect(res.code, res.msg).toBe(0);
  };
  const newKey = (on: KspServer, name: string) =>
    call(on, api.key.create, {
      token,
      body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
  const codes = (answers: { code: number }[]) => ({
    ok: answers.filter((a) => a.code === 0).length,
    refused: answers.filter((a) => a.code === Code.STATE_FORBIDS).length,
  });
  const newToken = async (name: string, usage: 'cte' | 'kadp' | 'rdm', capacity = 0) => {
    const res = await call(server, api.registrationToken.create, { token, body: { name, usage, capacity } });
    expect(res.code, res.msg).toBe(0);
    return res.data.secret;
  };
  const enrol = (secret: string, name: string, type: 'tde' | 'kadp' | 'rdm') =>
    call(server, api.client.enrol, {
      body: { token: secret, csr, name, type, os: 'Linux', agent_version: '1.0.0', host: `${name}.example` },
    });

  it('TDE and RDM clients: parallel enrolments end at the licensed number', async () => {
    // (Each enrolment's certificate comes from the agent CA, whose key pair counts as keys.)
    await activate(`RACE-CLIENTS-${engine}`, { tde_clients: 2, rdm_clients: 3, kadp_clients: 100 });
    const tde = await newToken('race-tde', 'cte');
    const rdm = await newToken('race-rdm', 'rdm');
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => enrol(tde, `tde-${i}`, 'tde')),
      ...Array.from({ length: 8 }, (_, i) => enrol(rdm, `rdm-${i}`, 'rdm')),
    ]);
    expect(codes(answers.slice(0, 8))).toEqual({ ok: 2, refused: 6 });
    expect(codes(answers.slice(8))).toEqual({ ok: 3, refused: 5 });
    expect((await usage('tde_clients')).used).toBe(2);
    expect((await usage('rdm_clients')).used).toBe(3);
    const refusal = answers.find((a) => a.code !== 0)!;
    expect(refusal.msg).toBe('Licence limit reached: tde_clients is limited to 2');
  });

  it('registration tokens: parallel enrolments spend exactly the capacity', async () => {
    const secret = await newToken('race-capacity', 'kadp', 3);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => enrol(secret, `kadp-${i}`, 'kadp')),
    );
    expect(codes(answers), answers.map((a) => a.msg).join('; ')).toEqual({ ok: 3, refused: 5 });
    expect((await usage('kadp_clients')).used).toBe(3);
    const list = await call(server, api.registrationToken.list, { token, query: { page: 1, page_size: 10 } });
    expect(list.data.data.find((t) => t.name === 'race-capacity')).toMatchObject({ used: 3, remaining: 0 });
  });

  it('keys: 20 parallel creations with room for 5 make exactly 5, the others 4220', async () => {
    const before = (await usage('keys')).used;
    await activate(`RACE-KEYS-${engine}`, { keys: before + 5 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => newKey(server, `race-${i}`)));
    expect(codes(answers)).toEqual({ ok: 5, refused: 15 });
    expect(answers.find((a) => a.code !== 0)!.msg).toBe(
      `Licence limit reached: keys is limited to ${before + 5}`,
    );
    expect(await usage('keys')).toMatchObject({ used: before + 5, total: before + 5 });
    // And later, alone, still refused.
    const last = await newKey(server, 'race-last');
    expect(last.code).toBe(Code.STATE_FORBIDS);
  });

  it('SMS servers: parallel creations end at the community limit of 1, and the licence counts them', async () => {
    const creds = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call(server, api.credential.create, {
          token,
          body: { name: `race-cred-${i}`, type: 'password', value: `Race-Pass-${i}` },
        }),
      ),
    );
    const answers = await Promise.all(
      creds.map((c, i) =>
        call(server, api.sshServer.create, {
          token,
          body: {
            name: `race-srv-${i}`,
            host: '127.0.0.1',
            port: 22,
            account: 'root',
            credential_id: c.data.id,
          },
        }),
      ),
    );
    expect(codes(answers)).toEqual({ ok: 1, refused: 4 });
    expect(answers.find((a) => a.code !== 0)!.msg).toBe('Licence limit reached: sms_servers is limited to 1');
    expect(await usage('sms_servers')).toMatchObject({ used: 1, total: 1 });
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details'])
      .where('action', '=', 'server.create')
      .where('result', '=', 'failure')
      .execute();
    expect(audited).toHaveLength(4);
    expect(audited.every((a) => String(a.details).includes('license.quota'))).toBe(true);
  });

  // Two nodes share a database on PostgreSQL only (a SQLite file has one node).
  if (engine === 'postgres')
    it('keys on two nodes of one database: creations on both end at the limit', async () => {
      const before = (await usage('keys')).used;
      // Six more keys in all (licences add up).
      await activate(`RACE-TWO-NODES`, { keys: 6 });
      expect((await usage('keys')).total).toBe(before + 6);
      const other = await server.startNode({ nodeName: 'quota-b' });
      try {
        const answers = await Promise.all(
          Array.from({ length: 24 }, (_, i) => newKey(i % 2 ? other : server, `two-${i}`)),
        );
        expect(codes(answers)).toEqual({ ok: 6, refused: 18 });
        expect((await usage('keys')).used).toBe(before + 6);
      } finally {
        await other.close();
      }
    });
});
