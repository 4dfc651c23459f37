import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { agentProcess as agent, agentServer, enrolAgent, finished, until } from '../../test/agent.js';
import { call, type TestServer } from '../../test/harness.js';
import {
  opensslTls,
  parse5424,
  parseCef,
  tcpReceiver,
  udpReceiver,
  type Receiver,
} from '../../test/syslog-receiver.js';

/**
 * The reference agent (tools/ksp-agent) sends its log events to the syslog servers of its
 * client profile: the profile is made through the console's calls, the agent receives it on
 * its config channel, and real receivers (UDP, TCP, mutual TLS) see the lines arrive in the
 * profile's formats, at or above its threshold. SQLite only, as ksp-agent.test.ts: the profile
 * calls are tested on both engines in tde-policy.test.ts.
 */
describe('ksp-agent sends its log events to the syslog servers of its profile', () => {
  let server: TestServer;
  let token: string;
  let base: string;
  let daemon: ChildProcess | undefined;
  let daemonLog = '';
  const work = mkdtempSync(join(tmpdir(), 'ksp-agent-syslog-'));
  const stateDir = join(work, 'state');
  const gpDir = join(work, 'payroll');
  const pki = opensslTls(mkdtempSync(join(work, 'pki-')));
  let udp: Receiver;
  let tcp: Receiver;
  let tls: Receiver;
  let clientId = '';

  const ok = <T extends { code: number; msg: string }>(res: T): T => {
    expect(res.code, res.msg).toBe(0);
    return res;
  };
  const config = () => {
    try {
      return readFileSync(join(stateDir, 'config.json'), 'utf8');
    } catch {
      return '';
    }
  };
  const version = () => (config() ? (JSON.parse(config()) as { version: number }).version : 0);
  const cat = (file: string) => finished(agent(['cat', '--state', stateDir, join(gpDir, file)]));

  agentServer((started) => ({ server, token, base } = started));
  beforeAll(async () => {
    udp = await udpReceiver();
    tcp = await tcpReceiver();
    tls = await tcpReceiver(0, { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca });
    mkdirSync(gpDir);
    writeFileSync(join(gpDir, 'open.txt'), 'open\n');
    writeFileSync(join(gpDir, 'secret.txt'), 'secret\n');

    const open = ok(
      await call(server, api.tdePolicy.elementCreate, {
        token,
        body: { kind: 'resource', name: 'open', resources: [{ directory: '/', file: 'open.txt' }] } as never,
      }),
    ).data.id;
    const policy = ok(
      await call(server, api.tdePolicy.policyCreate, {
        token,
        body: {
          name: 'payroll',
          security_rules: [
            // Audited at INFO: below the profile's WARN threshold, so never sent to syslog.
            { resource_set_id: open, actions: ['read'], effects: ['permit', 'audit'] },
            { actions: ['all_ops'], effects: ['deny'] },
          ],
        } as never,
      }),
    ).data.id;
    ok(
      await call(server, api.tdePolicy.profileCreate, {
        token,
        body: {
          name: 'syslog-agents',
          logging: { syslog_enabled: true },
          syslog_settings: {
            syslog_threshold: 'WARN',
            servers: [
              { name: '127.0.0.1', port: udp.port, protocol: 'UDP', message_format: 'RFC5424' },
              { name: 'localhost', port: tcp.port, protocol: 'TCP', message_format: 'PLAIN' },
            ],
          },
        } as never,
      }),
    );
    const secret = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'app-token', usage: 'cte', capacity: 0 },
      }),
    ).data.secret;
    clientId = await enrolAgent(base, { secret, name: 'app-01', type: 'tde', state: stateDir });
    ok(
      await call(server, api.tdeClient.setProfile, {
        token,
        body: { id: clientId, profile: 'syslog-agents' },
      }),
    );
    ok(
      await call(server, api.tdeClient.guardPointCreate, {
        token,
        body: { client_id: clientId, path: gpDir, type: 'directory_auto', policy_id: policy },
      }),
    );
    daemon = agent(['run', '--state', stateDir, '--heartbeat-s', '2', '--wait-s', '20']);
    daemon.stderr?.on('data', (c: Buffer) => (daemonLog += c.toString()));
    await until(
      `the profile in the agent's config (${daemonLog})`,
      () => config().includes('"syslog-agents"') && config().includes(gpDir),
    );
  });
  afterAll(async () => {
    daemon?.kill('SIGTERM');
    for (const r of [udp, tcp, tls]) await r?.close().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  it('sends a denial as RFC 5424 over UDP and as a plain line over TCP, and nothing below the threshold', async () => {
    const permitted = await cat('open.txt');
    expect(permitted.code, permitted.stderr).toBe(0);
    const denied = await cat('secret.txt');
    expect(denied.code).toBe(1);
    const resource = join(gpDir, 'secret.txt');
    const line = await until('the RFC 5424 line over UDP', () =>
      udp.messages.find((m) => m.includes(resource)),
    );
    const parsed = parse5424(line);
    expect(parsed).toMatchObject({ app: 'ksp-agent', msgid: 'read' });
    expect(parsed.pri).toBe(16 * 8 + 4);
    expect(parsed.sd).toMatchObject({
      action: 'read',
      effect: 'deny',
      policy: 'payroll',
      resource,
      guard_point: gpDir,
    });
    const plain = await until('the plain line over TCP', () =>
      tcp.messages.find((m) => m.includes(resource)),
    );
    expect(plain).toMatch(/^<132>\S+ \S+ ksp-agent\[\d+\]: WARN read deny /);
    expect(plain).toContain(`resource=${JSON.stringify(resource)}`);
    // The permitted read was audited at INFO: uploaded to KSP, not sent to syslog (threshold WARN).
    const logs = ok(
      await call(server, api.clientLog.list, { token, query: { page: 1, page_size: 50, action: 'read' } }),
    ).data.data;
    expect(logs.some((r) => r.effect === 'permit')).toBe(true);
    expect([...udp.messages, ...tcp.messages].some((m) => m.includes('open.txt'))).toBe(false);
  });

  it('sends CEF over mutual TLS with the client key the profile holds, which reaches the agent wrapped', async () => {
    const before = version();
    ok(
      await call(server, api.tdePolicy.profileUpdate, {
        token,
        body: {
          name: 'syslog-agents',
          logging: { syslog_enabled: true },
          syslog_settings: {
            syslog_threshold: 'INFO',
            servers: [
              {
                name: '127.0.0.1',
                port: tls.port,
                protocol: 'TLS',
                message_format: 'CEF',
                cacertificate: pki.ca,
                certificate: pki.clientCert,
                privatekey: pki.clientKey,
              },
            ],
          },
        } as never,
      }),
    );
    await until('the new configuration', () => version() > before);
    // The key is in the document only wrapped to the agent.
    expect(config()).not.toContain('PRIVATE KEY');
    expect(config()).toContain('"syslog:0"');
    const denied = await cat('secret.txt');
    expect(denied.code).toBe(1);
    const resource = join(gpDir, 'secret.txt');
    const line = await until('the CEF line over TLS', () => tls.messages.find((m) => m.includes(resource)));
    const { header, ext } = parseCef(parse5424(line).msg);
    expect(header).toEqual(['CEF:0', 'KSP', 'ksp-agent', '1.9.0', 'read', 'read deny', '6']);
    expect(ext).toMatchObject({ act: 'deny', fname: resource, cs1: 'payroll', cs1Label: 'policy' });
    // INFO is now at the threshold: the permitted read goes too.
    expect((await cat('open.txt')).code).toBe(0);
    await until('the INFO line over TLS', () => tls.messages.find((m) => m.includes('open.txt')));
  });
});
