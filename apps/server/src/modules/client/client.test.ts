import { createHash, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  Code,
  CLIENT_ERROR_SECONDS,
  CLIENT_WARNING_SECONDS,
  COMMUNITY_LIMITS,
  signedText,
} from '@ksp/contracts';
import { agentKeyAndCsr } from '../../test/agent.js';
import { HEARTBEAT_REFUSALS_PER_MINUTE } from './client.service.js';
import { licenseEverything, testLicenseKeys } from '../../test/license.js';
import { call, callUnchecked, engines, ok, type TestServer } from '../../test/harness.js';
import { signedInServer, tenantAndAuditor } from '../../test/fixtures.js';

describe.each(await engines())('clients on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let other: { domainId: string; token: string };
  let auditor: string;
  const vendor = testLicenseKeys();
  const agentA = agentKeyAndCsr('agent-a');
  const agentB = agentKeyAndCsr('agent-b');

  signedInServer(engine, (started) => ({ server, token } = started), {
    env: { KSP_LICENSE_TEST_PUBLIC_KEY: vendor.publicKeyBase64 },
  });
  beforeAll(async () => {
    ({ other, auditor } = await tenantAndAuditor(server, token));
  });

  const newToken = async (
    name: string,
    o: { usage?: 'kadp' | 'cte'; capacity?: number; days?: number; expires?: string; as?: string } = {},
  ) =>
    ok(
      await call(server, api.registrationToken.create, {
        token: o.as ?? token,
        body: {
          name,
          usage: o.usage ?? 'kadp',
          capacity: o.capacity ?? 0,
          ...(o.days ? { cert_validity_days: o.days } : {}),
          ...(o.expires ? { expires_at: o.expires } : {}),
        },
      }),
    ).data;

  const enrol = (secret: string, name: string, csr = agentA.csr) =>
    call(server, api.client.enrol, {
      body: {
        token: secret,
        csr,
        name,
        type: 'kadp',
        os: 'Linux',
        agent_version: '1.0.0',
        mac: 'aa:bb:cc:dd:ee:ff',
        host: `${name}.example`,
      },
    });

  let lastTs = 0;
  /** A heartbeat signed with `key` for `clientId` (timestamps increase unless given). */
  const heartbeat = (clientId: string, key: KeyObject, payload: object = {}, timestamp?: number) => {
    const ts = timestamp ?? Math.max(server.clock.now.getTime(), lastTs + 1);
    if (timestamp === undefined) lastTs = ts;
    const text = JSON.stringify(payload);
    const digest = createHash('sha256').update(text).digest('hex');
    const signature = sign('sha256', Buffer.from(signedText(clientId, ts, digest)), key).toString('base64');
    return call(server, api.client.heartbeat, {
      body: { client_id: clientId, timestamp: ts, payload: text, signature },
    });
  };
  const detail = (id: string, t = token) => call(server, api.client.detail, { token: t, query: { id } });
  const failures = async (action: string) =>
    (
      await server.database.db
        .selectFrom('audit_log')
        .select(['result', 'details'])
        .where('action', '=', action)
        .where('result', '=', 'failure')
        .execute()
    ).map((r) => r.details ?? '');

  it('refuses an enrolment over the licence quota of its type, naming the feature and limit', async () => {
    const t = await newToken('quota');
    const limit = COMMUNITY_LIMITS.kadp_clients;
    const counted = async () =>
      Number(
        (
          await server.database.db
            .selectFrom('client')
            .where('type', '=', 'kadp')
            .where('state', '!=', 'deleted')
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    while ((await counted()) < limit) ok(await enrol(t.secret, `fill-${await counted()}`));
    const over = await enrol(t.secret, 'over');
    expect(over.code).toBe(Code.STATE_FORBIDS);
    expect(over.msg).toContain('kadp_clients');
    expect(over.msg).toContain(String(limit));
    expect((await failures('client.enrol')).join(' ')).toMatch(/license.quota/);
    // A force-deleted client frees its unit at once.
    const fillers = ok(await call(server, api.client.list, { token, query: { name: 'fill-' } })).data.data;
    ok(await call(server, api.client.forceDelete, { token, body: { id: fillers[0]!.id } }));
    ok(await enrol(t.secret, 'after-a-removal'));
    for (const c of ok(await call(server, api.client.list, { token, query: {} })).data.data)
      ok(await call(server, api.client.forceDelete, { token, body: { id: c.id } }));
    // The other cases enrol more than the community limit.
    await licenseEverything(server, token, vendor);
  });

  it('enrols with a valid token: a certificate for the token validity, the token use counted, the client listed healthy', async () => {
    const created = await newToken('apps', { capacity: 3, days: 30 });
    const enrolled = ok(await enrol(created.secret, 'app-1')).data;
    const cert = new X509Certificate(enrolled.certificate_pem);
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(30 * 86_400_000);
    expect(cert.subject).toContain('CN=agent-a');
    expect(enrolled.chain_pem.length).toBeGreaterThanOrEqual(1);
    expect(cert.checkIssued(new X509Certificate(enrolled.chain_pem[0]!))).toBe(true);
    const tokens = ok(
      await call(server, api.registrationToken.list, { token, query: { name: 'apps' } }),
    ).data;
    expect(tokens.data[0]).toMatchObject({ used: 1, remaining: 2 });

    const listed = ok(await call(server, api.client.list, { token, query: {} })).data;
    expect(listed.data.map((c) => c.name)).toContain('app-1');
    const row = listed.data.find((c) => c.id === enrolled.client_id)!;
    expect(row).toMatchObject({
      status: 'healthy',
      type: 'kadp',
      os: 'Linux',
      agent_version: '1.0.0',
      mac: 'aa:bb:cc:dd:ee:ff',
      host: 'app-1.example',
      token_name: 'apps',
      groups: [],
      certificate: { serial: enrolled.serial, not_after: enrolled.not_after, revoked: false },
    });
    expect(listed.counts).toMatchObject({ total: 1, healthy: 1, warnings: 0, errors: 0 });
    // The database holds no secret of the token and no private key.
    const stored = await server.database.db.selectFrom('client').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
  });

  it('refuses expired, exhausted, unknown and other-usage tokens, bad CSRs and private keys, and audits each', async () => {
    const soon = new Date(server.clock.now.getTime() + 60_000).toISOString();
    const expiring = await newToken('expiring', { expires: soon });
    server.clock.advance(61);
    const expired = await enrol(expiring.secret, 'late');
    expect(expired.code).toBe(Code.STATE_FORBIDS);
    expect(expired.msg).toMatch(/has expired/);

    const single = await newToken('single', { capacity: 1 });
    ok(await enrol(single.secret, 'only-one'));
    const exhausted = await enrol(single.secret, 'one-too-many');
    expect(exhausted.code).toBe(Code.STATE_FORBIDS);
    expect(exhausted.msg).toMatch(/no registrations left/);

    expect((await enrol('ksprt_nope', 'nobody')).code).toBe(Code.BAD_CREDENTIALS);
    const tde = await newToken('tde-agents', { usage: 'cte' });
    expect((await enrol(tde.secret, 'wrong-kind')).code).toBe(Code.BAD_CREDENTIALS);

    const good = await newToken('good');
    const lines = agentB.csr.trim().split('\n');
    // Flip one character of the signature (the last Base64 line before the footer).
    const sigLine = lines[lines.length - 2]!;
    lines[lines.length - 2] = `${sigLine.slice(0, 4)}${sigLine[4] === 'A' ? 'B' : 'A'}${sigLine.slice(5)}`;
    const tampered = await enrol(good.secret, 'tampered', `${lines.join('\n')}\n`);
    expect(tampered.code).toBe(Code.INVALID);
    expect((await enrol(good.secret, 'garbage', 'not a csr')).code).toBe(Code.INVALID);
    const withKey = await enrol(
      good.secret,
      'with-key',
      `${agentB.csr}${agentB.key.export({ format: 'pem', type: 'pkcs8' }).toString()}`,
    );
    expect(withKey.code).not.toBe(0);
    expect(withKey.msg).toMatch(/private key/);
    // The refusals spent no use of the token and stored no client.
    const tokens = ok(
      await call(server, api.registrationToken.list, { token, query: { name: 'good' } }),
    ).data;
    expect(tokens.data[0]!.used).toBe(0);
    const names = (await server.database.db.selectFrom('client').select('name').execute()).map((r) => r.name);
    expect(names).not.toContain('tampered');
    expect(names).not.toContain('with-key');
    const refused = await failures('client.enrol');
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused.join(' ')).toMatch(/token.expired/);
    expect(refused.join(' ')).toMatch(/token.exhausted/);
    expect(refused.join(' ')).not.toContain(good.secret);
  });

  it("takes signed heartbeats and refuses a stale or replayed timestamp and another client's or domain's key", async () => {
    const t = await newToken('beats');
    const a = ok(await enrol(t.secret, 'beat-a')).data;
    const b = ok(await enrol(t.secret, 'beat-b', agentB.csr)).data;
    const beat = ok(
      await heartbeat(a.client_id, agentA.key, { agent_version: '1.1.0', host: 'moved.example' }),
    ).data;
    expect(beat).toMatchObject({ state: 'enrolled', serial: a.serial });
    expect(ok(await detail(a.client_id)).data).toMatchObject({
      agent_version: '1.1.0',
      host: 'moved.example',
    });

    // Replay of the same timestamp, and a timestamp ten minutes old.
    expect((await heartbeat(a.client_id, agentA.key, {}, lastTs)).code).toBe(Code.BAD_CREDENTIALS);
    expect((await heartbeat(a.client_id, agentA.key, {}, server.clock.now.getTime() - 600_000)).code).toBe(
      Code.BAD_CREDENTIALS,
    );
    // Client B's key signing as client A.
    const foreign = await heartbeat(a.client_id, agentB.key);
    expect(foreign.code).toBe(Code.BAD_CREDENTIALS);
    expect(foreign.msg).toMatch(/signature/);
    // A client of another domain signing as this one with its own key.
    const theirs = await newToken('theirs', { as: other.token });
    const agentC = agentKeyAndCsr('agent-c');
    const c = ok(
      await call(server, api.client.enrol, {
        body: { token: theirs.secret, csr: agentC.csr, name: 'their-app', type: 'kadp' },
      }),
    ).data;
    expect((await heartbeat(a.client_id, agentC.key)).code).toBe(Code.BAD_CREDENTIALS);
    ok(await heartbeat(c.client_id, agentC.key));
    // Unknown client.
    expect((await heartbeat('00000000-0000-4000-8000-000000000000', agentA.key)).code).toBe(
      Code.BAD_CREDENTIALS,
    );
    ok(await heartbeat(b.client_id, agentB.key));
    const refused = await failures('client.heartbeat');
    expect(refused.join(' ')).toMatch(/stale/);
    expect(refused.join(' ')).toMatch(/signature/);
  });

  it('accepts one of five copies of a heartbeat sent at once, beside another client', async () => {
    const t = await newToken('parallel');
    const a = ok(await enrol(t.secret, 'parallel-a')).data;
    const b = ok(await enrol(t.secret, 'parallel-b', agentB.csr)).data;
    const ts = Math.max(server.clock.now.getTime(), lastTs + 1);
    lastTs = ts + 10;
    // The same signed call five times at once (a replay race), beside another client's call.
    const copies = await Promise.all([
      ...Array.from({ length: 5 }, () => heartbeat(a.client_id, agentA.key, { host: 'copy' }, ts)),
      heartbeat(b.client_id, agentB.key, {}, ts),
    ]);
    expect(copies.slice(0, 5).filter((r) => r.code === 0)).toHaveLength(1);
    expect(copies.slice(0, 5).filter((r) => r.code === Code.BAD_CREDENTIALS)).toHaveLength(4);
    expect(copies[5]!.code).toBe(0);
    expect(ok(await detail(a.client_id)).data.host).toBe('copy');
    // The next call of the client, newer, is accepted as usual.
    ok(await heartbeat(a.client_id, agentA.key, { host: 'after' }, ts + 1));
    expect(ok(await detail(a.client_id)).data.host).toBe('after');
  });

  it('answers 429 to an address past its refused heartbeats of the minute, auditing that once', async () => {
    // A new minute: the refusals of the cases before do not count.
    server.clock.advance(60);
    const before = (await failures('client.heartbeat')).length;
    const unknown = '00000000-0000-4000-8000-000000000001';
    for (let i = 0; i < HEARTBEAT_REFUSALS_PER_MINUTE; i++)
      expect((await heartbeat(unknown, agentA.key)).code).toBe(Code.BAD_CREDENTIALS);
    const limited = await heartbeat(unknown, agentA.key);
    expect(limited.status).toBe(429);
    expect((await heartbeat(unknown, agentA.key)).status).toBe(429);
    const after = await failures('client.heartbeat');
    expect(after.length - before).toBe(HEARTBEAT_REFUSALS_PER_MINUTE + 1);
    expect(after.filter((d) => d.includes('rateLimited'))).toHaveLength(1);
    server.clock.advance(60);
  });

  it('derives warning and error from heartbeat age on the fake clock, and counts them in the status bar', async () => {
    const t = await newToken('ages');
    const a = ok(await enrol(t.secret, 'age-a')).data;
    server.clock.advance(CLIENT_WARNING_SECONDS + 1);
    expect(ok(await detail(a.client_id)).data.status).toBe('warning');
    const warned = ok(await call(server, api.client.list, { token, query: { status: 'warning' } })).data;
    expect(warned.data.map((r) => r.id)).toContain(a.client_id);
    expect(warned.counts.warnings).toBeGreaterThanOrEqual(1);
    server.clock.advance(CLIENT_ERROR_SECONDS - CLIENT_WARNING_SECONDS);
    expect(ok(await detail(a.client_id)).data.status).toBe('error');
    const errors = ok(await call(server, api.client.list, { token, query: { status: 'error' } })).data;
    expect(errors.data.map((r) => r.id)).toContain(a.client_id);
    expect(errors.counts.errors).toBe(errors.total);
    ok(await heartbeat(a.client_id, agentA.key));
    expect(ok(await detail(a.client_id)).data.status).toBe('healthy');
    const healthy = ok(await call(server, api.client.list, { token, query: { status: 'healthy' } })).data;
    expect(healthy.data.map((r) => r.id)).toContain(a.client_id);
  });

  it('revokes (certificate revoked, heartbeats refused), renews, deletes with the agent acknowledging, and force-deletes', async () => {
    const t = await newToken('life');
    const revoked = ok(await enrol(t.secret, 'to-revoke')).data;
    const shown = ok(await call(server, api.client.revoke, { token, body: { id: revoked.client_id } })).data;
    expect(shown).toMatchObject({ status: 'revoked', certificate: { revoked: true } });
    const certs = ok(await call(server, api.cert.list, { token, query: { name: 'agent-a' } })).data;
    expect(certs.data.find((r) => r.serial === revoked.serial)?.status).toBe('revoked');
    const refused = await heartbeat(revoked.client_id, agentA.key);
    expect(refused.code).toBe(Code.BAD_CREDENTIALS);
    expect(refused.msg).toMatch(/revoked/);
    expect((await call(server, api.client.revoke, { token, body: { id: revoked.client_id } })).code).toBe(
      Code.STATE_FORBIDS,
    );

    const renewing = ok(await enrol(t.secret, 'to-renew')).data;
    const renewed = ok(
      await call(server, api.client.renew, { token, body: { id: renewing.client_id } }),
    ).data;
    expect(renewed.certificate.serial).not.toBe(renewing.serial);
    const beat = ok(await heartbeat(renewing.client_id, agentA.key)).data;
    expect(beat.serial).toBe(renewed.certificate.serial);
    expect(new X509Certificate(beat.certificate_pem).serialNumber.toLowerCase()).toBe(
      renewed.certificate.serial.toLowerCase(),
    );

    const deleting = ok(await enrol(t.secret, 'to-delete')).data;
    expect(
      ok(await call(server, api.client.delete, { token, body: { id: deleting.client_id } })).data,
    ).toMatchObject({
      status: 'deleted',
      delete_acknowledged: false,
    });
    expect(ok(await heartbeat(deleting.client_id, agentA.key)).data.state).toBe('deleted');
    expect(ok(await heartbeat(deleting.client_id, agentA.key, { acknowledge_delete: true })).data.state).toBe(
      'deleted',
    );
    expect(ok(await detail(deleting.client_id)).data).toMatchObject({
      status: 'deleted',
      delete_acknowledged: true,
      certificate: { revoked: true },
    });
    expect((await heartbeat(deleting.client_id, agentA.key)).code).toBe(Code.BAD_CREDENTIALS);

    const forced = ok(await enrol(t.secret, 'to-force')).data;
    expect(
      ok(await call(server, api.client.forceDelete, { token, body: { id: forced.client_id } })).data.deleted,
    ).toBe(1);
    expect((await detail(forced.client_id)).code).toBe(Code.NOT_FOUND);
    expect((await heartbeat(forced.client_id, agentA.key)).code).toBe(Code.BAD_CREDENTIALS);
  });

  it('shows a client revoked as soon as its certificate is revoked on the certificates page, and back when a hold is lifted', async () => {
    const t = await newToken('cert-page');
    const held = ok(await enrol(t.secret, 'held')).data;
    const certId = ok(await detail(held.client_id)).data.certificate.id;
    // Put on hold: revoked at once, before any heartbeat; the agent is refused.
    ok(await call(server, api.cert.revoke, { token, body: { id: certId, reason: 'certificateHold' } }));
    expect(ok(await detail(held.client_id)).data).toMatchObject({
      status: 'revoked',
      certificate: { revoked: true },
    });
    expect((await heartbeat(held.client_id, agentA.key)).code).toBe(Code.BAD_CREDENTIALS);
    // The hold lifted: active again, and the agent's next heartbeat is taken.
    ok(await call(server, api.cert.resume, { token, body: { id: certId } }));
    expect(ok(await detail(held.client_id)).data.status).toBe('healthy');
    ok(await heartbeat(held.client_id, agentA.key));
    // Revoked for good: the client stays revoked.
    ok(await call(server, api.cert.revoke, { token, body: { id: certId, reason: 'keyCompromise' } }));
    expect(ok(await detail(held.client_id)).data.status).toBe('revoked');
    expect((await call(server, api.cert.resume, { token, body: { id: certId } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    expect(ok(await detail(held.client_id)).data.status).toBe('revoked');
  });

  it("keeps another domain's clients out of reach (4040, never listed) and refuses writes without kadp:write", async () => {
    const t = await newToken('mine');
    const mine = ok(await enrol(t.secret, 'root-only-app')).data;
    const id = mine.client_id;
    const theirList = ok(await call(server, api.client.list, { token: other.token, query: {} })).data;
    expect(theirList.data.map((r) => r.name)).not.toContain('root-only-app');
    expect(theirList.counts.total).toBe(theirList.data.length);
    expect((await detail(id, other.token)).code).toBe(Code.NOT_FOUND);
    for (const def of [api.client.revoke, api.client.delete, api.client.forceDelete, api.client.renew])
      expect((await callUnchecked(server, def, { token: other.token, body: { id } })).code).toBe(
        Code.NOT_FOUND,
      );
    // The Auditor reads but does not write.
    expect(ok(await detail(id, auditor)).data.name).toBe('root-only-app');
    for (const def of [api.client.revoke, api.client.delete, api.client.forceDelete, api.client.renew])
      expect((await callUnchecked(server, def, { token: auditor, body: { id } })).code).toBe(Code.FORBIDDEN);
    expect(ok(await detail(id)).data.status).toBe('healthy');
    // A KADP sub-console token reaches the client calls (they are its pages' calls).
    const kadp = ok(await call(server, api.user.kadpToken, { token, body: {} })).data.token;
    expect(ok(await detail(id, kadp)).data.name).toBe('root-only-app');
    // No token: refused.
    expect((await call(server, api.client.list, { query: {} })).code).not.toBe(0);
  });
});
