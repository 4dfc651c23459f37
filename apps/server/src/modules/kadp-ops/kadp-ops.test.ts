import { createHash, sign, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code, signedText } from '@ksp/contracts';
import { agentKeyAndCsr } from '../../test/agent.js';
import { HEARTBEAT_REFUSALS_PER_MINUTE } from '../client/client.service.js';
import { call, engines, ok, type TestServer } from '../../test/harness.js';
import { auditRecords, signedInWithBranch } from '../../test/fixtures.js';

describe.each(await engines())('KADP client operations on %s', (engine) => {
  let server: TestServer;
  let admin: string;
  let tenant: { domainId: string; token: string };
  let clientId = '';
  let keyId = '';
  let tenantKeyId = '';
  const agent = agentKeyAndCsr('kadp-ops-app');
  let lastTs = 0;

  const signed = (id: string, key: KeyObject, payload: object, timestamp?: number) => {
    const ts = timestamp ?? Math.max(server.clock.now.getTime(), lastTs + 1);
    if (timestamp === undefined) lastTs = ts;
    const text = JSON.stringify(payload);
    const digest = createHash('sha256').update(text).digest('hex');
    const signature = sign('sha256', Buffer.from(signedText(id, ts, digest)), key).toString('base64');
    return call(server, api.kadpOps.crypto, {
      body: { client_id: id, timestamp: ts, payload: text, signature },
    });
  };
  const ops = (id: string, token = admin) =>
    call(server, api.kadpOps.operations, { token, query: { id, page: 1, page_size: 10 } });

  signedInWithBranch(engine, (started) => ({ server, token: admin, branch: tenant } = started));
  beforeAll(async () => {
    const reg = ok(
      await call(server, api.registrationToken.create, {
        token: admin,
        body: { name: 'apps', usage: 'kadp', capacity: 0 },
      }),
    ).data;
    clientId = ok(
      await call(server, api.client.enrol, {
        body: {
          token: reg.secret,
          csr: agent.csr,
          name: 'billing',
          type: 'kadp',
          os: '',
          agent_version: '',
          mac: '',
          host: '',
        },
      }),
    ).data.client_id;
    keyId = ok(
      await call(server, api.key.create, {
        token: admin,
        body: { name: 'app-key', algorithm: 'AES-256', usage_mask: 0xc },
      }),
    ).data.id;
    tenantKeyId = ok(
      await call(server, api.key.create, {
        token: tenant.token,
        body: { name: 'tenant-key', algorithm: 'AES-256', usage_mask: 0xc },
      }),
    ).data.id;
  });

  it('encrypts and decrypts with its client identity, each operation counted on its detail', async () => {
    const enc = ok(
      await signed(clientId, agent.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGVsbG8=' }),
    );
    expect(enc.data.ciphertext).toBeTruthy();
    const dec = ok(
      await signed(clientId, agent.key, { op: 'decrypt', key_id: keyId, ciphertext: enc.data.ciphertext! }),
    );
    expect(dec.data.plaintext).toBe('aGVsbG8=');
    const list = ok(await ops(clientId)).data;
    expect(list.total).toBe(2);
    expect(list.data.map((r) => [r.operation, r.key_name, r.result])).toEqual([
      ['decrypt', 'app-key', 'success'],
      ['encrypt', 'app-key', 'success'],
    ]);
    // A KADP sub-console token reads it too.
    const kadp = ok(await call(server, api.user.kadpToken, { token: admin })).data.token;
    expect(ok(await ops(clientId, kadp)).data.total).toBe(2);
  });

  it("cannot use another domain's key: refused as not found, and recorded as a failure", async () => {
    const res = await signed(clientId, agent.key, { op: 'encrypt', key_id: tenantKeyId, plaintext: 'aGk=' });
    expect(res.code).toBe(Code.NOT_FOUND);
    const latest = ok(await ops(clientId)).data.data[0]!;
    expect(latest).toMatchObject({
      operation: 'encrypt',
      key_name: '-',
      result: 'failure',
      reason: 'key.notFound',
    });
  });

  it('refuses a wrong key, a replayed timestamp and a bad payload; records nothing for them', async () => {
    ok(await signed(clientId, agent.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' }));
    const accepted = lastTs;
    const before = ok(await ops(clientId)).data.total;
    const stranger = agentKeyAndCsr('stranger');
    const forged = await signed(clientId, stranger.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' });
    expect(forged.code).toBe(Code.BAD_CREDENTIALS);
    const replay = await signed(
      clientId,
      agent.key,
      { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' },
      accepted,
    );
    expect(replay.code).toBe(Code.BAD_CREDENTIALS);
    const bad = await signed(clientId, agent.key, { op: 'sign', key_id: keyId });
    expect(bad.code).toBe(Code.INVALID);
    expect(ok(await ops(clientId)).data.total).toBe(before);
    const audits = (await auditRecords(server, 'client.crypto')).filter((a) => a.result === 'failure');
    expect(audits.map((a) => a.details).join(' ')).toMatch(/signature.*stale|stale.*signature/s);
  });

  it("shows another domain nothing of the client's operations", async () => {
    expect((await ops(clientId, tenant.token)).code).toBe(Code.NOT_FOUND);
  });

  it('answers 429 to an address past 30 forged calls in a minute, before any check, auditing that once', async () => {
    // A new minute: the refusals of the cases before do not count.
    server.clock.advance(60);
    const stranger = agentKeyAndCsr('forger');
    const forge = () => signed(clientId, stranger.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' });
    // Sent at once: no more than the limit reach the signature check, the rest are answered 429.
    const answers = await Promise.all(Array.from({ length: HEARTBEAT_REFUSALS_PER_MINUTE + 10 }, forge));
    expect(answers.filter((r) => r.code === Code.BAD_CREDENTIALS)).toHaveLength(
      HEARTBEAT_REFUSALS_PER_MINUTE,
    );
    expect(answers.filter((r) => r.status === 429)).toHaveLength(10);
    // Even the client's own good call is answered 429 from that address for the rest of the minute.
    const own = await signed(clientId, agent.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' });
    expect(own.status).toBe(429);
    const rateLimited = await server.database.db
      .selectFrom('audit_log')
      .select(['details', 'source'])
      .where('action', '=', 'client.crypto')
      .where('details', 'like', '%rateLimited%')
      .execute();
    expect(rateLimited).toHaveLength(1);
    // Agent refusals are API calls in the log, whether the client is known or not.
    const sources = await server.database.db
      .selectFrom('audit_log')
      .select('source')
      .distinct()
      .where('action', '=', 'client.crypto')
      .where('result', '=', 'failure')
      .execute();
    expect(sources).toEqual([{ source: 'api' }]);
    server.clock.advance(60);
    ok(await signed(clientId, agent.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' }));
  });

  it('stops at once when the client is revoked', async () => {
    ok(await call(server, api.client.revoke, { token: admin, body: { id: clientId } }));
    const res = await signed(clientId, agent.key, { op: 'encrypt', key_id: keyId, plaintext: 'aGk=' });
    expect(res.code).toBe(Code.BAD_CREDENTIALS);
  });
});
