import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage } from '@ksp/contracts';
import { agentAuthorization, agentKeyAndCsr } from '../../test/agent.js';
import {
  call,
  callUnchecked,
  engines,
  hashForLogin,
  initialize,
  startServer,
  type TestServer,
} from '../../test/harness.js';
import {
  opensslTls,
  parse5424,
  parseCef,
  parseLeef,
  tcpReceiver,
  udpReceiver,
  type Receiver,
} from '../../test/syslog-receiver.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets what was sent reach the receivers: waits until none has received anything new for
 * 300 ms (at most 5 s), instead of a fixed pause a loaded machine may outrun.
 */
async function settle(receivers: readonly Receiver[]): Promise<void> {
  const count = () => receivers.reduce((n, r) => n + r.messages.length, 0);
  const deadline = Date.now() + 5000;
  let seen = count();
  let quietSince = Date.now();
  while (Date.now() < deadline && Date.now() - quietSince < 300) {
    await wait(25);
    const now = count();
    if (now !== seen) {
      seen = now;
      quietSince = Date.now();
    }
  }
}

describe.each(await engines())('syslog forwarding on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let dir: string;
  let pki: ReturnType<typeof opensslTls>;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    server = await startServer(engine);
    ({ token } = await initialize(server));
    dir = mkdtempSync(join(tmpdir(), 'ksp-syslog-'));
    pki = opensslTls(dir);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close().catch(() => undefined);
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const create = (body: Record<string, unknown>) =>
    callUnchecked(server, api.syslog.create, { token, body: body });
  const makeKey = async (name: string) =>
    expect(
      (
        await call(server, api.key.create, {
          token,
          body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
        })
      ).code,
    ).toBe(0);
  /** What the delivery job does: seal the new records, then deliver. */
  const round = async () => {
    await server.services.logs.seal();
    return server.services.syslog.forward();
  };
  const listed = async (name: string) =>
    (await call(server, api.syslog.list, { token, query: { page: 1, page_size: 50 } })).data.data.find(
      (s) => s.name === name,
    )!;

  it('refuses receivers it could not use, naming the field and the rule', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { name: 'r1', host: 'no-such-host.invalid', protocol: 'udp' },
        /^host: no-such-host\.invalid does not resolve/,
      ],
      [{ name: 'r1', host: '127.0.0.1', protocol: 'udp', port: 70000 }, /^port/],
      [
        { name: 'r1', host: '127.0.0.1', protocol: 'udp', ca_cert: pki.ca },
        /^ca_cert: only for the TLS protocol/,
      ],
      [
        { name: 'r1', host: '127.0.0.1', protocol: 'tls', ca_cert: 'not a pem' },
        /^ca_cert: not a PEM certificate/,
      ],
      [
        { name: 'r1', host: '127.0.0.1', protocol: 'tls', client_cert: pki.clientCert },
        /^client_cert and client_key go together/,
      ],
      [
        {
          name: 'r1',
          host: '127.0.0.1',
          protocol: 'tls',
          client_cert: pki.clientCert,
          client_key: pki.otherKey,
        },
        /^client_key: not a PEM private key, or it does not match client_cert/,
      ],
      [{ name: 'r1', host: '127.0.0.1', protocol: 'udp', streams: [] }, /^streams/],
      [{ name: 'r1', host: '127.0.0.1', protocol: 'smtp' }, /^protocol/],
    ];
    for (const [body, message] of cases) {
      const answer = await create(body);
      expect(answer.code, JSON.stringify(body).slice(0, 80)).toBe(Code.INVALID);
      expect(answer.msg).toMatch(message);
    }
  });

  it('delivers every new record over TCP (RFC 5424), UDP (CEF), TLS with a client certificate (LEEF) and TCP (JSON)', async () => {
    const tcp = await tcpReceiver();
    const udp = await udpReceiver();
    const tls = await tcpReceiver(0, { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca });
    const json = await tcpReceiver();
    receivers.push(tcp, udp, tls, json);
    const made = [
      await create({ name: 'tcp-5424', host: '127.0.0.1', port: tcp.port, protocol: 'tcp' }),
      await create({ name: 'udp-cef', host: '127.0.0.1', port: udp.port, protocol: 'udp', format: 'cef' }),
      await create({
        name: 'tls-leef',
        host: '127.0.0.1',
        port: tls.port,
        protocol: 'tls',
        format: 'leef',
        ca_cert: pki.ca,
        client_cert: pki.clientCert,
        client_key: pki.clientKey,
      }),
      await create({ name: 'tcp-json', host: 'localhost', port: json.port, protocol: 'tcp', format: 'json' }),
    ];
    for (const m of made) expect(m.code, m.msg).toBe(0);
    expect(made[2]!.data).toMatchObject({ has_client_key: true, port: tls.port });
    expect(JSON.stringify(made[2]!.data)).not.toContain('PRIVATE KEY');
    const stored = await server.database.db
      .selectFrom('syslog_server')
      .select('client_key')
      .where('name', '=', 'tls-leef')
      .executeTakeFirstOrThrow();
    expect(stored.client_key).not.toContain('PRIVATE KEY');

    await makeKey('syslog-key-1');
    // A name typed at sign-in reaches receivers escaped, whatever it holds.
    await call(server, api.user.login, {
      body: { username: 'x"] =|\\ 名', password: await hashForLogin('nope') },
    });
    const sent = await round();
    expect(sent).toBeGreaterThanOrEqual(8);
    await settle(receivers);

    const records = tcp.messages.map(parse5424);
    const created = records.find((r) => r.sd.action === 'key.create' && r.sd.target === 'syslog-key-1')!;
    expect(created).toMatchObject({ pri: 13 * 8 + 6, app: 'ksp', msgid: 'key.create' });
    expect(created.sd).toMatchObject({ result: 'success', user: 'admin', domain: 'root', source: 'web' });
    expect(created.sd.seq).toMatch(/^[0-9a-f-]{36}:\d+$/);
    const refused = records.find((r) => r.sd.action === 'user.login' && r.sd.result === 'failure')!;
    expect(refused.sd.target).toBe('x"] =|\\ 名');
    expect(refused.pri).toBe(13 * 8 + 4);
    expect(refused.msg.startsWith('\uFEFF')).toBe(true);

    const cef = udp.messages.map((m) => parseCef(parse5424(m).msg));
    const cefKey = cef.find((c) => c.ext.msg === 'syslog-key-1')!;
    expect(cefKey.header.slice(0, 6)).toEqual(['CEF:0', 'KSP', 'KSP', 'v1.9.0', 'key.create', 'key.create']);
    expect(cefKey.ext).toMatchObject({ act: 'key.create', outcome: 'success', suser: 'admin', cs1: 'root' });
    expect(cef.find((c) => c.ext.outcome === 'failure' && c.ext.act === 'user.login')?.ext.msg).toBe(
      'x"] =|\\ 名',
    );

    const leef = tls.messages.map((m) => parseLeef(parse5424(m).msg));
    const leefKey = leef.find((l) => l.attrs.resource === 'syslog-key-1')!;
    expect(leefKey.header).toEqual(['LEEF:2.0', 'KSP', 'KSP', 'v1.9.0', 'key.create', 'x09']);
    expect(leefKey.attrs).toMatchObject({ usrName: 'admin', result: 'success', domain: 'root' });

    const objects = json.messages.map((m) => JSON.parse(parse5424(m).msg) as Record<string, unknown>);
    expect(objects.find((o) => o.target === 'syslog-key-1')).toMatchObject({
      action: 'key.create',
      severity: 'INFO',
    });

    // Every receiver got the same records, once each, in chain order.
    expect(udp.messages.length).toBe(tcp.messages.length);
    expect(tls.messages.length).toBe(tcp.messages.length);
    const seqs = records.filter((r) => r.sd.domain === 'root').map((r) => Number(r.sd.seq!.split(':')[1]));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await listed('tcp-5424')).toMatchObject({ lag: 0, last_error: null });
    expect((await listed('tcp-5424')).sent).toBe(tcp.messages.length);
  });

  it('keeps the records while a TCP receiver is down and delivers all of them once it is back', async () => {
    const receiver = await tcpReceiver();
    receivers.push(receiver);
    const made = await create({ name: 'flaky', host: '127.0.0.1', port: receiver.port, protocol: 'tcp' });
    expect(made.code, made.msg).toBe(0);
    await makeKey('before-outage');
    await round();
    await settle(receivers);
    expect(receiver.messages.some((m) => m.includes('before-outage'))).toBe(true);
    const port = receiver.port;
    await receiver.close();

    for (const name of ['during-outage-1', 'during-outage-2', 'during-outage-3']) await makeKey(name);
    await round();
    const down = await listed('flaky');
    expect(down.lag).toBeGreaterThanOrEqual(3);
    expect(down.last_error).toMatch(/ECONNREFUSED/);
    const test = await call(server, api.syslog.test, { token, body: { id: made.data.id } });
    expect(test.data).toMatchObject({ ok: false });
    expect(test.data.detail).toMatch(/ECONNREFUSED/);

    const back = await tcpReceiver(port);
    receivers.push(back);
    // Within the backoff nothing is tried; after it, everything arrives.
    await round();
    expect(back.messages).toHaveLength(0);
    server.clock.advance(60);
    await round();
    await settle(receivers);
    server.clock.advance(-60);
    const names = back.messages.map((m) => parse5424(m).sd.target);
    for (const name of ['during-outage-1', 'during-outage-2', 'during-outage-3'])
      expect(names).toContain(name);
    expect(names).not.toContain('before-outage');
    expect(await listed('flaky')).toMatchObject({ lag: 0, last_error: null });

    const ok = await call(server, api.syslog.test, { token, body: { id: made.data.id } });
    expect(ok.data).toMatchObject({ ok: true, detail: 'delivered' });
    await settle(receivers);
    expect(back.messages.at(-1)).toContain('syslog.test');
  });

  it('updates, disables and deletes receivers; a disabled one receives nothing', async () => {
    const receiver = await udpReceiver();
    receivers.push(receiver);
    const made = await create({
      name: 'to-change',
      host: '127.0.0.1',
      port: receiver.port,
      protocol: 'udp',
      streams: ['alarm'],
    });
    expect(made.code, made.msg).toBe(0);
    await makeKey('not-an-alarm');
    await round();
    await settle(receivers);
    // The alarm stream alone: no INFO record.
    expect(receiver.messages.some((m) => m.includes('not-an-alarm'))).toBe(false);
    // ...but an alarm's record, whatever its severity: a rule raising a WARNING alarm is sent.
    const rule = await call(server, api.alarm.ruleCreate, {
      token,
      body: {
        name: 'new-keys',
        action: 'key.create',
        threshold: 1,
        interval_seconds: 60,
        severity: 'WARNING',
      },
    });
    expect(rule.code, rule.msg).toBe(0);
    await makeKey('alarming-key');
    // The alarm job (every 10 s) may raise it before this round does: either way, raised once.
    await server.services.alarms.evaluate();
    const alarms = await call(server, api.alarm.list, { token, query: { page: 1, page_size: 50 } });
    expect(alarms.data.data.filter((a) => a.rule_name === 'new-keys')).toHaveLength(1);
    await round();
    await settle(receivers);
    const raised = receiver.messages.filter((m) => m.includes('alarm.raise'));
    expect(raised).toHaveLength(1);
    expect(raised[0]).toContain('new-keys');
    expect(parse5424(raised[0]!).pri % 8).toBe(4);
    expect(receiver.messages.some((m) => m.includes('alarming-key'))).toBe(false);
    const off = await call(server, api.syslog.update, {
      token,
      body: { id: made.data.id, enabled: false, streams: ['server'] },
    });
    expect(off.data).toMatchObject({ enabled: false, streams: ['server'] });
    const bad = await callUnchecked(server, api.syslog.update, {
      token,
      body: { id: made.data.id, ca_cert: pki.ca },
    });
    expect(bad.msg).toMatch(/^ca_cert: only for the TLS protocol/);
    const dup = await call(server, api.syslog.update, {
      token,
      body: { id: made.data.id, name: 'tcp-5424' },
    });
    expect(dup.code).toBe(Code.CONFLICT);
    await makeKey('while-disabled');
    await round();
    await settle(receivers);
    expect(receiver.messages.some((m) => m.includes('while-disabled'))).toBe(false);
    const deleted = await call(server, api.syslog.delete, { token, body: { ids: [made.data.id] } });
    expect(deleted.data).toEqual({ deleted: 1 });
    expect(await listed('to-change')).toBeUndefined();
    const audit = await server.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'syslog.%')
      .execute();
    expect(new Set(audit.map((a) => a.action))).toEqual(
      new Set(['syslog.create', 'syslog.update', 'syslog.delete', 'syslog.test']),
    );
  });

  it('forwards client records to receivers taking the client stream, in each format, with their sequence ids', async () => {
    const ca = await call(server, api.cert.caCreate, {
      token,
      body: { name: 'Syslog agents', cn: 'Syslog agents CA', algorithm: 'EC-P256' },
    });
    expect((await call(server, api.cert.caSelfSign, { token, body: { id: ca.data.id } })).code).toBe(0);
    const { key, csr } = agentKeyAndCsr('agent-7.example.test');
    const cert = await call(server, api.cert.issue, {
      token,
      body: { name: 'agent-7', ca_id: ca.data.id, csr, purpose: 'client' },
    });
    expect(cert.code, cert.msg).toBe(0);
    const upload = async (records: Record<string, unknown>[]) => {
      const raw = JSON.stringify({ client_name: 'agent-7', client_os: 'Linux', records });
      const res = await server.app.inject({
        method: 'POST',
        url: api.clientLog.upload.path,
        headers: {
          'content-type': 'application/json',
          authorization: agentAuthorization({
            key,
            certPem: cert.data.certificate_pem,
            body: raw,
            iat: Math.floor(server.clock.now.getTime() / 1000),
          }),
        },
        payload: raw,
      });
      expect(res.json<{ code: number }>().code, res.body).toBe(0);
    };
    const base = {
      at: '2025-03-04T05:06:07.000Z',
      policy: 'p1',
      guard_point: '/secure',
      process: '/usr/bin/cp',
    };
    // Uploaded before the receivers exist: they start from the records received after them.
    await upload([
      { ...base, level: 'INFO', action: 'read', effect: 'permit', os_user: 'before', resource: '/secure/a' },
    ]);

    const r5424 = await tcpReceiver();
    const cef = await udpReceiver();
    const leef = await tcpReceiver();
    const json = await tcpReceiver();
    const serverOnly = await tcpReceiver();
    receivers.push(r5424, cef, leef, json, serverOnly);
    for (const body of [
      { name: 'client-5424', port: r5424.port, protocol: 'tcp', streams: ['client'] },
      { name: 'client-cef', port: cef.port, protocol: 'udp', format: 'cef', streams: ['client'] },
      {
        name: 'client-leef',
        port: leef.port,
        protocol: 'tcp',
        format: 'leef',
        streams: ['client', 'server'],
      },
      { name: 'client-json', port: json.port, protocol: 'tcp', format: 'json', streams: ['client'] },
      { name: 'server-only', port: serverOnly.port, protocol: 'tcp', streams: ['server'] },
    ]) {
      const made = await create({ host: '127.0.0.1', ...body });
      expect(made.code, made.msg).toBe(0);
    }
    await upload([
      {
        ...base,
        level: 'WARN',
        action: 'write',
        effect: 'deny',
        os_user: 'mallory',
        resource: '/secure/b|c',
      },
      { ...base, level: 'FATAL', action: 'delete', effect: 'audit', os_user: 'root', resource: '/secure/d' },
    ]);
    await round();
    await settle(receivers);

    const rfc = r5424.messages.map(parse5424);
    expect(rfc.map((r) => r.sd.user)).toEqual(['mallory', 'root']);
    expect(rfc[0]).toMatchObject({ pri: 13 * 8 + 4, app: 'ksp-agent', msgid: 'write' });
    expect(rfc[0]!.sd).toMatchObject({
      effect: 'deny',
      client: 'agent-7',
      os: 'Linux',
      ip: '127.0.0.1',
      resource: '/secure/b|c',
      guard_point: '/secure',
      policy: 'p1',
      domain: 'root',
      agent_time: '2025-03-04T05:06:07.000Z',
      client_id: cert.data.serial,
    });
    expect(rfc[1]!.pri).toBe(13 * 8 + 2);
    const seqs = rfc.map((r) => Number(r.sd.seq!.replace(/^client:/, '')));
    expect(seqs[1]).toBe(seqs[0]! + 1);

    const cefs = cef.messages.map((m) => parseCef(parse5424(m).msg));
    expect(cefs).toHaveLength(2);
    expect(cefs[0]!.header.slice(0, 7)).toEqual([
      'CEF:0',
      'KSP',
      'KSP Agent',
      'v1.9.0',
      'client.write',
      'write',
      '6',
    ]);
    expect(cefs[0]!.ext).toMatchObject({
      act: 'write',
      outcome: 'deny',
      suser: 'mallory',
      src: '127.0.0.1',
      shost: 'agent-7',
      filePath: '/secure/b|c',
      externalId: `client:${seqs[0]}`,
    });

    const leefs = leef.messages
      .map((m) => parseLeef(parse5424(m).msg))
      .filter((l) => l.header[2] === 'KSP Agent');
    expect(leefs.map((l) => l.attrs.usrName)).toEqual(['mallory', 'root']);
    expect(leefs[1]!.attrs).toMatchObject({
      result: 'audit',
      action: 'delete',
      sequence: `client:${seqs[1]}`,
    });

    const objects = json.messages.map((m) => JSON.parse(parse5424(m).msg) as Record<string, unknown>);
    expect(objects.map((o) => o.os_user)).toEqual(['mallory', 'root']);
    expect(objects[0]).toMatchObject({
      stream: 'client',
      level: 'WARN',
      effect: 'deny',
      client_name: 'agent-7',
    });

    expect(serverOnly.messages.some((m) => m.includes('mallory'))).toBe(false);
    expect(await listed('client-json')).toMatchObject({ lag: 0, sent: 2 });

    // A receiver that takes the stream later starts from then, not from the records kept.
    const later = await call(server, api.syslog.update, {
      token,
      body: { id: (await listed('server-only')).id, streams: ['server', 'client'] },
    });
    expect(later.code, later.msg).toBe(0);
    await upload([
      { ...base, level: 'INFO', action: 'read', effect: 'permit', os_user: 'after', resource: '/secure/e' },
    ]);
    await round();
    await settle(receivers);
    const taken = serverOnly.messages.map(parse5424).filter((r) => r.app === 'ksp-agent');
    expect(taken.map((r) => r.sd.user)).toEqual(['after']);
  });
});
