import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code, type ClientLogInput } from '@ksp/contracts';
import { CLIENT_CSV_COLUMNS, UPLOAD_REFUSALS_PER_MINUTE } from './client-log.service.js';
import { csvCell } from '../../platform/csv.js';
import { agentAuthorization, agentKeyAndCsr, selfSignedAgent } from '../../test/agent.js';
import { call, callUnchecked, engines, type TestServer } from '../../test/harness.js';
import { rootDomainId, signedInWithBranch } from '../../test/fixtures.js';

interface Agent {
  key: KeyObject;
  certPem: string;
  certId: string;
  serial: string;
}

const record = (extra: Partial<ClientLogInput> = {}): ClientLogInput => ({
  level: 'INFO',
  at: '2025-01-02T03:04:05.000Z',
  action: 'read',
  effect: 'permit',
  policy: 'finance-policy',
  guard_point: '/data/finance',
  os_user: 'alice',
  process: '/usr/bin/cat',
  resource: '/data/finance/q1.xlsx',
  details: { inode: 42 },
  ...extra,
});

describe.each(await engines())('client records on %s', (engine) => {
  let server: TestServer;
  let root: string;
  let branchAdmin: string;
  let rootAgent: Agent;
  let branchAgent: Agent;
  let serverCert: Agent;

  /** A CA of the caller's domain, self-signed, and a client certificate it issues from a CSR. */
  async function caOf(token: string, name: string) {
    const ca = await call(server, api.cert.caCreate, {
      token,
      body: { name, cn: `${name} CA`, algorithm: 'EC-P256' },
    });
    expect(ca.code, ca.msg).toBe(0);
    const signed = await call(server, api.cert.caSelfSign, { token, body: { id: ca.data.id } });
    expect(signed.code, signed.msg).toBe(0);
    return ca.data.id;
  }
  async function issue(token: string, caId: string, cn: string, purpose: 'client' | 'server' = 'client') {
    const { key, csr } = agentKeyAndCsr(cn);
    const cert = await call(server, api.cert.issue, {
      token,
      body: { name: cn, ca_id: caId, csr, purpose },
    });
    expect(cert.code, cert.msg).toBe(0);
    return { key, certPem: cert.data.certificate_pem, certId: cert.data.id, serial: cert.data.serial };
  }

  /** Posts an upload as an agent would: the exact body bytes the token's hash covers. */
  async function upload(
    body: unknown,
    authorization: string | ((raw: string) => string) | null,
    lang = 'en',
    remoteAddress = '127.0.0.1',
  ) {
    const raw = JSON.stringify(body);
    const res = await server.app.inject({
      remoteAddress,
      method: 'POST',
      url: api.clientLog.upload.path,
      headers: {
        'content-type': 'application/json',
        'accept-language': lang,
        ...(authorization === null
          ? {}
          : { authorization: typeof authorization === 'string' ? authorization : authorization(raw) }),
      },
      payload: raw,
    });
    const json = res.json<{ code: number; msg: string; data: { accepted: number } | null }>();
    return { status: res.statusCode, ...json };
  }
  /** The server's clock stands still in tests: tokens are dated by it. */
  const serverNow = () => Math.floor(server.clock.now.getTime() / 1000);
  const as =
    (agent: Agent, extra: Partial<Parameters<typeof agentAuthorization>[0]> = {}) =>
    (raw: string) =>
      agentAuthorization({ key: agent.key, certPem: agent.certPem, body: raw, iat: serverNow(), ...extra });

  const list = (token: string, query: Record<string, string | number> = {}) =>
    callUnchecked(server, api.clientLog.list, { token, query: { page: 1, page_size: 100, ...query } });

  async function refusals(reason: string) {
    return server.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'log.client.upload')
      .where('result', '=', 'failure')
      .where('details', 'like', `%"reason":"${reason}"%`)
      .execute();
  }

  signedInWithBranch(engine, (started) => {
    ({ server, token: root } = started);
    branchAdmin = started.branch.token;
  });
  beforeAll(async () => {
    const rootCa = await caOf(root, 'Agents');
    const branchCa = await caOf(branchAdmin, 'Branch agents');
    rootAgent = await issue(root, rootCa, 'host-a.example.test');
    branchAgent = await issue(branchAdmin, branchCa, 'host-b.example.test');
    serverCert = await issue(root, rootCa, 'web.example.test', 'server');

    const first = await upload(
      {
        client_name: 'host-a',
        client_os: 'Linux 6.1',
        records: [
          record(),
          record({
            level: 'WARN',
            action: 'write',
            effect: 'deny',
            os_user: 'mallory',
            process: '=cmd|calc',
          }),
          record({ level: 'DEBUG', action: 'key_fetch', effect: 'audit', os_user: 'root', details: {} }),
        ],
      },
      as(rootAgent),
    );
    expect(first, first.msg).toMatchObject({ status: 200, code: 0, data: { accepted: 3 } });
    const second = await upload(
      { records: [record({ os_user: 'bob', resource: '/srv/branch/plan.doc', guard_point: '/srv/branch' })] },
      as(branchAgent),
    );
    expect(second, second.msg).toMatchObject({ code: 0, data: { accepted: 1 } });
  });

  it('lists uploaded records newest first with the client columns, and filters them', async () => {
    const all = await list(root);
    expect(all.code, all.msg).toBe(0);
    expect(all.data.total).toBe(4);
    expect(all.data.total_exact).toBe(true);
    const seqs = all.data.data.map((r) => r.seq);
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
    const denied = all.data.data.find((r) => r.effect === 'deny');
    expect(denied).toMatchObject({
      level: 'WARN',
      action: 'write',
      os_user: 'mallory',
      client_name: 'host-a',
      client_os: 'Linux 6.1',
      client_cn: 'host-a.example.test',
      client_id: rootAgent.serial,
      ip: '127.0.0.1',
      policy: 'finance-policy',
      guard_point: '/data/finance',
      domain_name: 'root',
      at: '2025-01-02T03:04:05.000Z',
    });
    // Without a name in the upload, the certificate's common name names the client.
    expect(all.data.data.find((r) => r.os_user === 'bob')).toMatchObject({
      client_name: 'host-b.example.test',
      domain_name: 'branch',
    });

    const pick = async (query: Record<string, string>) =>
      (await list(root, query)).data.data.map((r) => r.os_user).sort();
    expect(await pick({ effect: 'deny' })).toEqual(['mallory']);
    expect(await pick({ level: 'DEBUG' })).toEqual(['root']);
    expect(await pick({ action: 'key_fetch' })).toEqual(['root']);
    expect(await pick({ client: 'host-a' })).toEqual(['alice', 'mallory', 'root']);
    expect(await pick({ client: rootAgent.serial.toLowerCase() })).toEqual(['alice', 'mallory', 'root']);
    expect(await pick({ client: 'host-b.example.test' })).toEqual(['bob']);
    expect(await pick({ os_user: 'alice' })).toEqual(['alice']);
    expect(await pick({ ip: '127.0.0.1' })).toHaveLength(4);
    expect(await pick({ ip: '10.9.9.9' })).toEqual([]);
    expect(await pick({ q: 'plan.doc' })).toEqual(['bob']);
    expect(await pick({ q: 'inode' })).toEqual(['alice', 'bob', 'mallory']);
    expect(await pick({ from: new Date(Date.now() + 3_600_000).toISOString() })).toEqual([]);

    const one = await call(server, api.clientLog.detail, { token: root, query: { id: denied!.id } });
    expect(one.data).toEqual(denied);
  });

  it('pages by position with next_cursor, and refuses a forged cursor or a page past the count', async () => {
    const all = (await list(root)).data.data.map((r) => r.id);
    expect(all).toHaveLength(4);
    const first = await list(root, { page_size: 3 });
    expect(first.data.data.map((r) => r.id)).toEqual(all.slice(0, 3));
    expect(first.data.next_cursor).toEqual(expect.any(String));
    // The page after it by position is the page after it by number, and the last one.
    const next = await list(root, { page: 2, page_size: 3, after: first.data.next_cursor! });
    expect(next.code, next.msg).toBe(0);
    expect(next.data.data.map((r) => r.id)).toEqual(all.slice(3));
    expect(next.data.next_cursor).toBeNull();
    // Filters apply after the position too.
    const alice = await list(root, { page_size: 1, os_user: 'alice' });
    const afterAlice = await list(root, { page_size: 1, os_user: 'alice', after: alice.data.next_cursor! });
    expect(afterAlice.data.data).toEqual([]);
    // A cursor this list did not hand out is refused by name; so is a page by number past the count.
    const forged = await list(root, { after: Buffer.from('not|a|cursor').toString('base64url') });
    expect(forged.code).toBe(Code.INVALID);
    expect(forged.msg).toMatch(/^after: not a cursor this list handed out/);
    const deep = await list(root, { page: 1001, page_size: 100 });
    expect(deep.code).toBe(Code.INVALID);
    expect(deep.msg).toMatch(/100,000/);
  });

  it('exports the filtered records as CSV and JSON, and audits the export', async () => {
    const csv = await callUnchecked(server, api.clientLog.export, {
      token: root,
      query: { format: 'csv', client: 'host-a' },
    });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-disposition'])).toMatch(
      /attachment; filename="ksp-client-log-.*\.csv"/,
    );
    const lines = (csv.data as unknown as string).trim().split('\r\n');
    expect(lines[0]).toMatch(/^received_at,at,level,action,effect,client_name/);
    expect(lines).toHaveLength(4);
    // A cell a spreadsheet would run as a formula is neutralized.
    expect(lines.find((l) => l.includes('mallory'))).toContain(",'=cmd|calc,");
    const json = await callUnchecked(server, api.clientLog.export, {
      token: branchAdmin,
      query: { format: 'json' },
    });
    const rows = JSON.parse(json.data) as { os_user: string }[];
    expect(rows.map((r) => r.os_user)).toEqual(['bob']);
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select(['target', 'username'])
      .where('action', '=', 'log.client.export')
      .execute();
    expect(audited).toEqual(
      expect.arrayContaining([
        { target: 'csv', username: 'admin' },
        { target: 'json', username: 'branch-admin' },
      ]),
    );
  });

  it('exports records of any content byte for byte as the list shows them, whatever writes the file', async () => {
    // PostgreSQL writes exports itself (COPY); the file must be the one the server's own writer
    // makes from the records the list answers.
    const hostile = [
      '=cmd',
      '-1',
      'a,b',
      'say "hi"',
      'l1\nl2',
      'cr\r\nlf',
      '\x01\x02 \x02\x02',
      "E'q' \\ $1",
      '中文 😀',
      '',
    ];
    const rootDomain = await server.database.db
      .selectFrom('domain')
      .select('id')
      .where('name', '=', 'root')
      .executeTakeFirstOrThrow();
    await server.database.db
      .insertInto('client_log')
      .values(
        hostile.map((text, i) => ({
          id: `hostile-${i}`,
          domain_id: rootDomain.id,
          ca_id: 'ca',
          client_id: 'AA',
          client_cn: text,
          client_name: text,
          client_os: 'linux',
          client_ip: i % 2 ? '10.0.0.2' : '',
          level: 'WARN',
          agent_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          received_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          action: 'test.hostile',
          effect: i % 2 ? 'deny' : 'permit',
          policy: text,
          guard_point: `/data/${text}`,
          os_user: text,
          process: text,
          resource: text,
          details: JSON.stringify({ text, n: i, list: [text, null, false] }),
        })),
      )
      .execute();
    const shown = (await list(root, { action: 'test.hostile' })).data.data;
    expect(shown).toHaveLength(hostile.length);
    const csv = await callUnchecked(server, api.clientLog.export, {
      token: root,
      query: { format: 'csv', action: 'test.hostile' },
    });
    expect(csv.data as unknown as string).toBe(
      `${CLIENT_CSV_COLUMNS.join(',')}\r\n` +
        shown
          .map(
            (r) =>
              `${CLIENT_CSV_COLUMNS.map((c) => csvCell((r as Record<string, unknown>)[c])).join(',')}\r\n`,
          )
          .join(''),
    );
    const json = await callUnchecked(server, api.clientLog.export, {
      token: root,
      query: { format: 'json', action: 'test.hostile' },
    });
    expect(json.data as unknown as string).toBe(
      `[${shown.map((r, i) => `${i ? ',\n' : '\n'}${JSON.stringify(r)}`).join('')}\n]\n`,
    );
    await server.database.db.deleteFrom('client_log').where('action', '=', 'test.hostile').execute();
  });

  it("keeps each domain's records to itself", async () => {
    const branch = await list(branchAdmin);
    expect(branch.data.data.map((r) => r.os_user)).toEqual(['bob']);
    expect(branch.data.data.every((r) => r.domain_name === 'branch')).toBe(true);
    const rootRecord = (await list(root, { os_user: 'alice' })).data.data[0]!;
    const cross = await call(server, api.clientLog.detail, {
      token: branchAdmin,
      query: { id: rootRecord.id },
    });
    expect(cross.code).toBe(Code.NOT_FOUND);
    expect((await list(branchAdmin, { client: 'host-a' })).data.total).toBe(0);
  });

  it('refuses an upload without a valid agent token, with the reason, audited, storing nothing', async () => {
    const body = { records: [record({ os_user: 'intruder' })] };
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const stranger = selfSignedAgent('stranger.example.test');
    const now = serverNow();
    const cases: [string, string | ((raw: string) => string) | null, string][] = [
      ['missing', null, 'Authorization: Agent'],
      ['malformed', 'Agent not-a-jws', 'compact JWS'],
      [
        'signature',
        (raw) => agentAuthorization({ key: other, certPem: rootAgent.certPem, body: raw, iat: now }),
        'signature',
      ],
      [
        'unknownCa',
        (raw) => agentAuthorization({ key: stranger.key, certPem: stranger.certPem, body: raw, iat: now }),
        'active local CA',
      ],
      ['notClient', as(serverCert), 'client authentication'],
      ['expired', as(rootAgent, { iat: now - 600, exp: now - 400 }), 'expired'],
      ['lifetime', as(rootAgent, { iat: now, exp: now + 3600 }), '300 seconds'],
      ['audience', as(rootAgent, { aud: 'ksp:other' }), 'aud'],
      [
        'bodyHash',
        (raw) =>
          agentAuthorization({ key: rootAgent.key, certPem: rootAgent.certPem, body: `${raw} `, iat: now }),
        'body hash',
      ],
      ['algorithm', as(rootAgent, { alg: 'RS256' }), 'algorithm'],
    ];
    for (const [reason, auth, words] of cases) {
      const res = await upload(body, auth);
      expect(res.status, reason).toBe(401);
      expect(res.msg, reason).toContain(words);
      if (reason !== 'missing' && reason !== 'malformed')
        expect((await refusals(reason)).length, reason).toBeGreaterThan(0);
    }
    // The refusal names the agent and its CA where it is known, in the agent's CA's domain.
    const [notClient] = await refusals('notClient');
    expect(notClient).toMatchObject({ username: 'web.example.test', source: 'agent', result: 'failure' });
    expect(JSON.parse(notClient!.details)).toMatchObject({ ca: 'Agents', serial: serverCert.serial });
    // The token itself is never recorded.
    const all = await server.database.db.selectFrom('audit_log').select('details').execute();
    expect(all.some((r) => r.details.includes('eyJ'))).toBe(false);
    // In Chinese too.
    const zh = await upload(body, as(rootAgent, { aud: 'ksp:other' }), 'zh');
    expect(zh.msg).toBe('客户端令牌不是用于此调用的（aud）');
    expect((await list(root, { os_user: 'intruder' })).data.total).toBe(0);
  });

  it('refuses a replayed token, and a revoked certificate', async () => {
    const body = { records: [record({ os_user: 'replay' })] };
    const auth = agentAuthorization({
      key: rootAgent.key,
      certPem: rootAgent.certPem,
      body: JSON.stringify(body),
      iat: serverNow(),
    });
    expect((await upload(body, auth)).code).toBe(0);
    const again = await upload(body, auth);
    expect(again.status).toBe(401);
    expect(again.msg).toContain('used already');
    expect(await refusals('replay')).toHaveLength(1);
    expect((await list(root, { os_user: 'replay' })).data.total).toBe(1);

    // The same token sent eight times at once: one upload is stored, seven are replays.
    const raced = { records: [record({ os_user: 'raced' })] };
    const racedAuth = agentAuthorization({
      key: rootAgent.key,
      certPem: rootAgent.certPem,
      body: JSON.stringify(raced),
      iat: serverNow(),
    });
    const answers = await Promise.all(Array.from({ length: 8 }, () => upload(raced, racedAuth)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array<number>(7).fill(401)]);
    expect((await list(root, { os_user: 'raced' })).data.total).toBe(1);

    const victim = await issue(root, await caIdOf('Agents'), 'victim.example.test');
    expect((await upload(body, as(victim))).code).toBe(0);
    const revoked = await call(server, api.cert.revoke, {
      token: root,
      body: { id: victim.certId, reason: 'keyCompromise' },
    });
    expect(revoked.code, revoked.msg).toBe(0);
    const refused = await upload(body, as(victim));
    expect(refused.status).toBe(401);
    expect(refused.msg).toContain('revoked');
    expect(await refusals('revoked')).toHaveLength(1);
  });

  async function caIdOf(name: string) {
    const row = await server.database.db
      .selectFrom('cert_ca')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('refuses a bad record or an oversized batch, naming the rule, storing nothing', async () => {
    const before = (await list(root)).data.total;
    const bad = { records: [record(), record(), { ...record(), effect: 'maybe' }] };
    const res = await upload(bad, as(rootAgent));
    expect(res.code).toBe(Code.INVALID);
    expect(res.msg).toContain('records.2.effect');
    const zh = await upload({ records: [{ ...record(), level: 'LOUD' }] }, as(rootAgent), 'zh');
    expect(zh.code).toBe(Code.INVALID);
    expect(zh.msg).toContain('records.0.level');
    expect(zh.msg).toContain('只能是');
    const tooMany = { records: Array.from({ length: 1001 }, () => record()) };
    const big = await upload(tooMany, as(rootAgent));
    expect(big.code).toBe(Code.INVALID);
    expect(big.msg).toContain('records');
    expect(big.msg).toContain('1000');
    const huge = await upload({ records: [record({ details: { blob: 'x'.repeat(5000) } })] }, as(rootAgent));
    expect(huge.code).toBe(Code.INVALID);
    expect(huge.msg).toContain('records.0.details');
    expect((await list(root)).data.total).toBe(before);
  });

  it('raises the alarm of a client rule from uploaded records, through the alarm job', async () => {
    const rule = await call(server, api.alarm.ruleCreate, {
      token: root,
      body: {
        name: 'client-renames-denied',
        stream: 'client',
        action: 'rename',
        result: 'deny',
        threshold: 2,
        interval_seconds: 60,
        severity: 'ERROR',
      },
    });
    expect(rule.code, rule.msg).toBe(0);
    const one = await upload({ records: [record({ action: 'rename', effect: 'deny' })] }, as(branchAgent));
    expect(one.code, one.msg).toBe(0);
    expect(await server.services.alarms.evaluate()).toBe(0);
    // A permitted rename does not count; a second denied one reaches the threshold.
    const more = await upload(
      {
        records: [
          record({ action: 'rename', effect: 'permit' }),
          record({ action: 'rename', effect: 'deny', os_user: 'mallory' }),
        ],
      },
      as(branchAgent),
    );
    expect(more.code, more.msg).toBe(0);
    expect(await server.services.alarms.evaluate()).toBe(1);
    const alarms = await call(server, api.alarm.list, { token: root, query: { page: 1, page_size: 20 } });
    expect(alarms.data.data.find((a) => a.rule_name === 'client-renames-denied')).toMatchObject({
      severity: 'ERROR',
      state: 'open',
      count: 2,
    });
    // The rule belongs to the root domain: the branch's administrator sees neither it nor its alarm.
    const theirs = await call(server, api.alarm.list, {
      token: branchAdmin,
      query: { page: 1, page_size: 20 },
    });
    expect(theirs.data.data.some((a) => a.rule_name === 'client-renames-denied')).toBe(false);
    // Cooldown: no second alarm within the interval.
    expect(await server.services.alarms.evaluate()).toBe(0);
  });

  it('counts records for alarms by domain, action (or prefix), result and time, up to a limit', async () => {
    const clientLogs = server.services.clientLogs;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const rootDomain = await rootDomainId(server.database.db);
    const all = await clientLogs.count({ domainId: null, since, limit: 1000 });
    expect(all).toBeGreaterThanOrEqual(5);
    expect(await clientLogs.count({ domainId: null, since, limit: 2 })).toBe(2);
    expect(await clientLogs.count({ domainId: rootDomain, since, limit: 1000, result: 'deny' })).toBe(1);
    expect(await clientLogs.count({ domainId: rootDomain, since, limit: 1000, action: 'key_' })).toBe(0);
    expect(await clientLogs.count({ domainId: null, since, limit: 1000, action: 'write' })).toBe(1);
    expect(
      await clientLogs.count({
        domainId: null,
        since: new Date(Date.now() + 60_000).toISOString(),
        limit: 10,
      }),
    ).toBe(0);
  });

  it('answers 429 to an address past its refused uploads of the minute, auditing the first only', async () => {
    const attacker = '203.0.113.66';
    // Root's agent certificate (public) with a key that is not its own.
    const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = (raw: string) =>
      agentAuthorization({ key: forger, certPem: rootAgent.certPem, body: raw, iat: serverNow() });
    for (let i = 0; i < UPLOAD_REFUSALS_PER_MINUTE; i++) {
      const refused = await upload({ records: [record()] }, forged, 'en', attacker);
      expect(refused.status).toBe(401);
    }
    const auditedBefore = (await refusals('rateLimited')).length;
    for (let i = 0; i < 3; i++) {
      const limited = await upload({ records: [record()] }, forged, 'en', attacker);
      expect(limited).toMatchObject({ status: 429, code: 429 });
    }
    // Even a good upload from that address waits for the next minute; another address does not.
    expect((await upload({ records: [record()] }, as(rootAgent), 'en', attacker)).status).toBe(429);
    expect((await upload({ records: [record()] }, as(rootAgent), 'en', '203.0.113.67')).code).toBe(0);
    expect((await refusals('rateLimited')).length).toBe(auditedBefore + 1);
    server.clock.advance(60);
    expect((await upload({ records: [record()] }, as(rootAgent), 'en', attacker)).code).toBe(0);
  });

  it('drops records older than the retention, and expired token ids', async () => {
    server.clock.advance(400);
    expect(await server.services.clientLogs.sweepJtis()).toBeGreaterThan(0);
    expect(await server.services.clientLogs.retain(0)).toBe(0);
    server.clock.advance(2 * 86_400);
    expect(await server.services.clientLogs.retain(1)).toBeGreaterThan(0);
    const left = await server.database.db
      .selectFrom('client_log')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});
