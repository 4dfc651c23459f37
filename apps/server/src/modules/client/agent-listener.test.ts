import { createHash, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, signedText } from '@ksp/contracts';
import { agentKeyAndCsr } from '../../test/agent.js';
import { selfSignedEc } from '../../test/openssl.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';
import { call, engines, initialize, ok, startServer, type TestServer } from '../../test/harness.js';
import { HEARTBEAT_REFUSALS_PER_MINUTE } from './client.service.js';

interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

/**
 * The agent listener (KSP_AGENT_PORT, agent-listener.ts): heartbeats served by their own thread
 * on their own port, reached over the network as an agent would, judged like the API port's.
 */
describe.each(await engines())('the agent listener on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let port: number;
  let secret: string;
  const vendor = testLicenseKeys();
  const agent = agentKeyAndCsr('listener-agent');
  const stranger = agentKeyAndCsr('stranger');

  beforeAll(async () => {
    ({ server, token } = await licensedServer(engine, vendor, { env: { KSP_AGENT_PORT: '0' } }));
    secret = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'listener', usage: 'kadp', capacity: 0 },
      }),
    ).data.secret;
  });
  afterAll(async () => {
    await server?.close();
  });

  const enrol = async (name: string) => {
    const data = ok(
      await call(server, api.client.enrol, {
        body: { token: secret, csr: agent.csr, name, type: 'kadp', os: 'Linux', host: `${name}.example` },
      }),
    ).data;
    expect(data.heartbeat_port).toEqual(expect.any(Number));
    port = data.heartbeat_port!;
    return data.client_id;
  };

  let lastTs = 0;
  /** A signed call body; a string payload is sent as it is (not JSON of the heartbeat's fields). */
  const signed = (clientId: string, key: KeyObject, payload: object | string = {}) => {
    const ts = Math.max(Date.now(), lastTs + 1);
    lastTs = ts;
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const digest = createHash('sha256').update(text).digest('hex');
    const signature = sign('sha256', Buffer.from(signedText(clientId, ts, digest)), key).toString('base64');
    return JSON.stringify({ client_id: clientId, timestamp: ts, payload: text, signature });
  };
  const post = async (body: string, headers: Record<string, string> = {}, method = 'POST') => {
    const res = await fetch(`http://127.0.0.1:${port}${api.client.heartbeat.path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(method === 'POST' ? { body } : {}),
    });
    return { status: res.status, ...((await res.json()) as Envelope) };
  };
  const failures = async () =>
    (
      await server.database.db
        .selectFrom('audit_log')
        .select(['username', 'source', 'details', 'target'])
        .where('action', '=', 'client.heartbeat')
        .where('result', '=', 'failure')
        .orderBy('id')
        .execute()
    ).map((r) => ({ ...r, details: r.details ?? '' }));
  const detail = async (id: string) =>
    ok(await call(server, api.client.detail, { token, query: { id } })).data;

  it('accepts a signed heartbeat on its own port, records it, and names the port in its answer', async () => {
    const id = await enrol('listener-a');
    const before = await detail(id);
    const answer = await post(signed(id, agent.key, { os: 'Debian 12', agent_version: '2.0.0' }));
    expect(answer).toMatchObject({ status: 200, code: 0, data: { state: 'enrolled', heartbeat_port: port } });
    expect((answer.data as { certificate_pem: string }).certificate_pem).toContain('BEGIN CERTIFICATE');
    const after = await detail(id);
    expect(after.os).toBe('Debian 12');
    expect(after.agent_version).toBe('2.0.0');
    expect(after.last_seen_at >= before.last_seen_at).toBe(true);
    // The API port's heartbeat names the listener too, so an agent moves there.
    const viaApi = ok(
      await call(server, api.client.heartbeat, { body: JSON.parse(signed(id, agent.key)) as never }),
    );
    expect(viaApi.data.heartbeat_port).toBe(port);
  });

  it('refuses a replay, a forged signature and an unknown client with 4001, audited as API calls', async () => {
    const id = await enrol('listener-b');
    const body = signed(id, agent.key);
    expect((await post(body)).code).toBe(0);
    const before = (await failures()).length;
    const replay = await post(body);
    expect(replay.code).toBe(Code.BAD_CREDENTIALS);
    expect((await post(signed(id, stranger.key))).code).toBe(Code.BAD_CREDENTIALS);
    const unknown = await post(signed('00000000-0000-4000-8000-00000000abcd', agent.key), {
      'accept-language': 'zh-CN',
    });
    expect(unknown.code).toBe(Code.BAD_CREDENTIALS);
    expect(unknown.msg).toMatch(/未知客户端/);
    const records = (await failures()).slice(before);
    expect(records.map((r) => JSON.parse(r.details) as { reason: string }).map((d) => d.reason)).toEqual([
      'stale',
      'signature',
      'unknown',
    ]);
    expect(records.map((r) => r.username)).toEqual(['client:listener-b', 'client:listener-b', '-']);
    expect(new Set(records.map((r) => r.source))).toEqual(new Set(['api']));
  });

  it('accepts one of five copies of a signed heartbeat sent at once', async () => {
    const id = await enrol('listener-c');
    const body = signed(id, agent.key);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body)));
    expect(answers.filter((a) => a.code === 0)).toHaveLength(1);
    expect(answers.filter((a) => a.code === Code.BAD_CREDENTIALS)).toHaveLength(4);
  });

  it('records heartbeats of many clients sent at once, each its own, and refuses the copies among them', async () => {
    // Calls judged while a batch is with the main thread travel to it together: each answer
    // must still be its own call's.
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => enrol(`listener-many-${i}`)));
    const copied = signed(ids[0]!, agent.key, { agent_version: 'copied' });
    const bodies = [...ids.map((id, i) => signed(id, agent.key, { agent_version: `v${i}` })), copied, copied];
    const answers = await Promise.all(bodies.map((body) => post(body)));
    // Eight accepted: one per client (client 0 by its first call or by one of the copies).
    expect(answers.filter((a) => a.code === 0)).toHaveLength(8);
    expect(answers.filter((a) => a.code === Code.BAD_CREDENTIALS)).toHaveLength(2);
    for (const [i, id] of ids.entries()) {
      if (i === 0) continue;
      expect(answers[i]!.code).toBe(0);
      expect((await detail(id)).agent_version).toBe(`v${i}`);
    }
    expect(['v0', 'copied']).toContain((await detail(ids[0]!)).agent_version);
  });

  it("refuses a revoked client, and takes a deleted client's acknowledgement", async () => {
    const revoked = await enrol('listener-revoked');
    ok(await post(signed(revoked, agent.key)));
    ok(await call(server, api.client.revoke, { token, body: { id: revoked } }));
    const refused = await post(signed(revoked, agent.key));
    expect(refused.code).toBe(Code.BAD_CREDENTIALS);
    expect(JSON.parse((await failures()).at(-1)!.details)).toMatchObject({ reason: 'certificate' });

    const deleted = await enrol('listener-deleted');
    ok(await call(server, api.client.delete, { token, body: { id: deleted } }));
    expect((await post(signed(deleted, agent.key))).data).toMatchObject({ state: 'deleted' });
    expect((await post(signed(deleted, agent.key, { acknowledge_delete: true }))).data).toMatchObject({
      state: 'deleted',
    });
    const row = await server.database.db
      .selectFrom('client')
      .select('state')
      .where('id', '=', deleted)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('deleted');
  });

  it('answers bad input with the rule broken, other paths 404, other media 415, oversized bodies 413', async () => {
    const id = await enrol('listener-input');
    const missing = await post(JSON.stringify({ client_id: id, timestamp: Date.now(), payload: '{}' }));
    expect(missing.code).toBe(Code.INVALID);
    expect(missing.msg).toMatch(/signature/);
    expect((await post('{not json')).code).toBe(Code.INVALID);
    const badPayload = await post(signed(id, agent.key, '[1,2]'));
    expect(badPayload.code).toBe(Code.INVALID);
    expect(badPayload.msg).toMatch(/payload/);
    expect((await post('', {}, 'GET')).status).toBe(404);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(JSON.stringify({ pad: 'x'.repeat(70_000) }))).status).toBe(413);
  });

  it('stops parallel forged calls at the address limit, shared with the API port', async () => {
    const id = await enrol('listener-burst');
    // Not across a minute's turn: the counts start again there.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const forged = Array.from({ length: HEARTBEAT_REFUSALS_PER_MINUTE + 10 }, () => signed(id, stranger.key));
    const answers = await Promise.all(forged.map((b) => post(b)));
    const refused = answers.filter((a) => a.code === Code.BAD_CREDENTIALS).length;
    const limited = answers.filter((a) => a.status === 429).length;
    expect(refused + limited, JSON.stringify(answers.map((a) => [a.status, a.code]))).toBe(forged.length);
    expect(refused).toBeLessThanOrEqual(HEARTBEAT_REFUSALS_PER_MINUTE);
    expect(limited).toBeGreaterThanOrEqual(10);
    // The API port counts the listener's refusals: the same address is stopped there too.
    const viaApi = await call(server, api.client.heartbeat, {
      body: JSON.parse(signed(id, agent.key)) as never,
    });
    expect(viaApi.status).toBe(429);
  });
});

describe('the agent listener with TLS', () => {
  let server: TestServer;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'ksp-listener-tls-'));
  const agent = agentKeyAndCsr('tls-agent');

  beforeAll(async () => {
    selfSignedEc(dir, {
      key: 'server.key',
      cert: 'server.pem',
      cn: '127.0.0.1',
      days: 2,
      san: ['IP:127.0.0.1'],
    });
    server = await startServer('sqlite', {
      KSP_AGENT_PORT: '0',
      KSP_TLS_CERT: join(dir, 'server.pem'),
      KSP_TLS_KEY: join(dir, 'server.key'),
    });
    ({ token } = await initialize(server));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves heartbeats over HTTPS with the API certificate, and refuses plain HTTP', async () => {
    const secret = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'tls', usage: 'kadp', capacity: 0 },
      }),
    ).data.secret;
    const enrolled = ok(
      await call(server, api.client.enrol, {
        body: { token: secret, csr: agent.csr, name: 'tls-agent', type: 'kadp' },
      }),
    ).data;
    const port = enrolled.heartbeat_port!;
    const ts = Date.now();
    const text = '{}';
    const digest = createHash('sha256').update(text).digest('hex');
    const body = JSON.stringify({
      client_id: enrolled.client_id,
      timestamp: ts,
      payload: text,
      signature: sign('sha256', Buffer.from(signedText(enrolled.client_id, ts, digest)), agent.key).toString(
        'base64',
      ),
    });
    const answer = await new Promise<Envelope>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: api.client.heartbeat.path,
          method: 'POST',
          ca: readFileSync(join(dir, 'server.pem')),
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Envelope));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer).toMatchObject({ code: 0, data: { state: 'enrolled', heartbeat_port: port } });
    await expect(
      fetch(`http://127.0.0.1:${port}${api.client.heartbeat.path}`, { method: 'POST', body }),
    ).rejects.toThrow();
  });
});
