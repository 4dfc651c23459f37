import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, signedText } from '@ksp/contracts';
import { bumpClientConfig, clientConfigEpoch } from '../../platform/agent-config.js';
import { stubAgentConfig } from '../../test/agent-config-stub.js';
import { agentKeyAndCsr } from '../../test/agent.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';
import { call, engines, ok, type TestServer } from '../../test/harness.js';

// The TDE client module's `agentConfig` is stood in for by the test stub (test/agent-config-stub.ts).
describe.each(await engines())('config channel on %s', (engine) => {
  let server: TestServer;
  let token: string;
  const vendor = testLicenseKeys();
  const stub = stubAgentConfig();
  const agentA = agentKeyAndCsr('agent-a');
  const agentB = agentKeyAndCsr('agent-b');
  let clientA: string;
  let domainId: string;

  let lastTs = 0;
  const nextTs = () => (lastTs = Math.max(server.clock.now.getTime(), lastTs + 1));
  const signed = (clientId: string, key: KeyObject, payload: object, timestamp = nextTs()) => {
    const text = JSON.stringify(payload);
    const digest = createHash('sha256').update(text).digest('hex');
    const signature = sign('sha256', Buffer.from(signedText(clientId, timestamp, digest)), key).toString(
      'base64',
    );
    return { client_id: clientId, timestamp, payload: text, signature };
  };
  const config = (clientId: string, key: KeyObject, payload: { since_version: number; wait_s?: number }) =>
    call(server, api.client.config, { body: signed(clientId, key, payload) });
  const timed = async <T>(p: Promise<T>) => {
    const started = Date.now();
    const value = await p;
    return { value, ms: Date.now() - started };
  };
  const enrol = async (name: string, csr: string) => {
    const created = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: `tok-${name}`, usage: 'kadp', capacity: 0 },
      }),
    ).data;
    return ok(
      await call(server, api.client.enrol, {
        body: { token: created.secret, csr, name, type: 'kadp', host: `${name}.example` },
      }),
    ).data.client_id;
  };
  const bump = () => bumpClientConfig(server.database.db, domainId, new Date());
  const failures = async () =>
    (
      await server.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'client.config')
        .where('result', '=', 'failure')
        .execute()
    ).map((r) => r.details ?? '');

  beforeAll(async () => {
    ({ server, token } = await licensedServer(engine, vendor, { services: { agentConfig: stub.source } }));
    clientA = await enrol('host-a', agentA.csr);
    const row = await server.database.db
      .selectFrom('client')
      .select('domain_id')
      .where('id', '=', clientA)
      .executeTakeFirstOrThrow();
    domainId = row.domain_id;
    stub.set(clientA, {
      guard_points: [
        {
          id: 'gp-1',
          path: '/data/finance',
          type: 'directory_auto',
          enabled: true,
          origin: { kind: 'client' },
          policy: null,
        },
      ],
      keys: [{ id: 'k-1', name: 'finance', version: 1, bytes: randomBytes(32) }],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers at once when the domain changed since the version the agent holds, keys wrapped (never in clear)', async () => {
    await bump();
    const { value: answer, ms } = await timed(config(clientA, agentA.key, { since_version: 0, wait_s: 20 }));
    ok(answer);
    expect(ms).toBeLessThan(2000);
    expect(answer.data.state).toBe('enrolled');
    expect(answer.data.changed).toBe(true);
    expect(answer.data.config.version).toBe(await clientConfigEpoch(server.database.db, domainId));
    expect(answer.data.config.guard_points[0]!.path).toBe('/data/finance');
    const key = answer.data.config.keys[0]!;
    expect(key).toMatchObject({ id: 'k-1', version: 1, alg: 'ECDH-ES+A256GCM' });
    expect(key.wrapped).toBeTruthy();
  });

  it('holds the call while nothing changes, then answers unchanged when wait_s passes', async () => {
    const since = await clientConfigEpoch(server.database.db, domainId);
    const { value: answer, ms } = await timed(
      config(clientA, agentA.key, { since_version: since, wait_s: 1 }),
    );
    ok(answer);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(answer.data.changed).toBe(false);
    expect(answer.data.config.version).toBe(since);
  });

  it('wakes a waiting agent within 2 s of a change made in this process', async () => {
    const since = await clientConfigEpoch(server.database.db, domainId);
    const waiting = timed(config(clientA, agentA.key, { since_version: since, wait_s: 20 }));
    await new Promise((r) => setTimeout(r, 300));
    const changedAt = Date.now();
    await bump();
    const { value: answer } = await waiting;
    ok(answer);
    expect(Date.now() - changedAt).toBeLessThan(2000);
    expect(answer.data.changed).toBe(true);
    expect(answer.data.config.version).toBe(since + 1);
  });

  it('wakes a waiting agent within 2 s of a change another node made (seen in the database only)', async () => {
    const since = await clientConfigEpoch(server.database.db, domainId);
    const waiting = timed(config(clientA, agentA.key, { since_version: since, wait_s: 20 }));
    await new Promise((r) => setTimeout(r, 300));
    const changedAt = Date.now();
    // Another node's change: the row only, no in-process notice.
    await sql`update client_config_epoch set seq = seq + 1 where domain_id = ${domainId}`.execute(
      server.database.db,
    );
    const { value: answer } = await waiting;
    ok(answer);
    expect(Date.now() - changedAt).toBeLessThan(2000);
    expect(answer.data.changed).toBe(true);
    expect(answer.data.config.version).toBe(since + 1);
  });

  it('an agent that reconnects after changes catches up at once', async () => {
    const held = await clientConfigEpoch(server.database.db, domainId);
    // Disconnected meanwhile: two changes.
    await bump();
    await bump();
    const { value: answer, ms } = await timed(
      config(clientA, agentA.key, { since_version: held, wait_s: 20 }),
    );
    ok(answer);
    expect(ms).toBeLessThan(2000);
    expect(answer.data.changed).toBe(true);
    expect(answer.data.config.version).toBe(held + 2);
  });

  it('keeps one waiting call per client: a new one ends the previous one unchanged', async () => {
    const since = await clientConfigEpoch(server.database.db, domainId);
    const first = timed(config(clientA, agentA.key, { since_version: since, wait_s: 20 }));
    await new Promise((r) => setTimeout(r, 200));
    const second = config(clientA, agentA.key, { since_version: since, wait_s: 1 });
    const { value: answer, ms } = await first;
    ok(answer);
    expect(ms).toBeLessThan(2000);
    expect(answer.data.changed).toBe(false);
    ok(await second);
  });

  it('refuses a foreign signature, a replay and a bad payload, and audits each', async () => {
    const foreign = await call(server, api.client.config, {
      body: signed(clientA, agentB.key, { since_version: 0, wait_s: 0 }),
    });
    expect(foreign.code).toBe(Code.BAD_CREDENTIALS);
    const body = signed(clientA, agentA.key, { since_version: 0, wait_s: 0 });
    ok(await call(server, api.client.config, { body }));
    const replay = await call(server, api.client.config, { body });
    expect(replay.code).toBe(Code.BAD_CREDENTIALS);
    const bad = await call(server, api.client.config, {
      body: signed(clientA, agentA.key, { since_version: 0, wait_s: 31 }),
    });
    expect(bad.code).toBe(Code.INVALID);
    const reasons = await failures();
    expect(reasons.some((d) => d.includes('signature'))).toBe(true);
    expect(reasons.some((d) => d.includes('stale'))).toBe(true);
    expect(reasons.some((d) => d.includes('client.auth.payload'))).toBe(true);
  });

  it('answers a deleted client "deleted" with an empty document, and refuses a revoked one', async () => {
    const agentC = agentKeyAndCsr('agent-c');
    const clientC = await enrol('host-c', agentC.csr);
    stub.set(clientC, {
      guard_points: [],
      keys: [{ id: 'k', name: 'k', version: 1, bytes: randomBytes(32) }],
    });
    ok(await call(server, api.client.delete, { token, body: { id: clientC } }));
    const deleted = ok(await config(clientC, agentC.key, { since_version: 0, wait_s: 5 })).data;
    expect(deleted.state).toBe('deleted');
    expect(deleted.config.keys).toEqual([]);

    const agentD = agentKeyAndCsr('agent-d');
    const clientD = await enrol('host-d', agentD.csr);
    ok(await call(server, api.client.revoke, { token, body: { id: clientD } }));
    const revoked = await config(clientD, agentD.key, { since_version: 0, wait_s: 0 });
    expect(revoked.code).toBe(Code.BAD_CREDENTIALS);
    expect((await failures()).some((d) => d.includes('certificate'))).toBe(true);
  });
});
