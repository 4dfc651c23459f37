import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';
import { userWithRole } from '../../test/fixtures.js';
import { startSshd, type Sshd } from '../../test/sshd.js';
import { FINGERPRINT_PER_MINUTE } from './ssh-server.targets.js';

/** A TCP listener on loopback: `silent` accepts and says nothing, `http` answers like a web server. */
async function listener(
  kind: 'silent' | 'http' | 'closed',
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (kind === 'http') socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      srv.close(() => resolve());
    });
  if (kind === 'closed') await close();
  return { port, close };
}

const TIMEOUT_S = 2;

describe.each(await engines())('fetching a host key on %s: where, how often, what it tells', (engine) => {
  let server: TestServer;
  let token: string;
  let sshd: Sshd;

  beforeAll(async () => {
    sshd = await startSshd();
    server = await startServer(engine, {
      KSP_SSH_ALLOWED_NETWORKS: '127.0.0.0/8',
      KSP_SSH_TIMEOUT_S: String(TIMEOUT_S),
    });
    ({ token } = await initialize(server));
  });
  afterAll(async () => {
    await server?.close();
    await sshd?.stop();
  });

  const audits = () =>
    server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details', 'target', 'username'])
      .where('action', '=', 'server.fetch-fingerprint')
      .orderBy('at')
      .execute();
  const fetchKey = (t: string, host: string, port: number) =>
    call(server, api.sshServer.fetchFingerprint, { token: t, body: { host, port } });
  const operator = async (name: string) =>
    (await userWithRole(server, token, { role: 'Operator', username: name, password: 'Probe-Pass-1' })).token;

  it('answers the key of an SSH server in the allowed networks, audited', async () => {
    const t = await operator('probe-ok');
    const got = await fetchKey(t, '127.0.0.1', sshd.port);
    expect(got.code, got.msg).toBe(0);
    expect(got.data.fingerprint).toBe(sshd.fingerprint);
    expect((await audits()).at(-1)).toMatchObject({ result: 'success', username: 'probe-ok' });
  });

  it('gives a closed port, a silent port and a web server one answer, at one moment', async () => {
    const t = await operator('probe-same');
    const targets = await Promise.all([listener('closed'), listener('silent'), listener('http')]);
    try {
      const answers = [];
      for (const target of targets) {
        const started = Date.now();
        const got = await fetchKey(t, '127.0.0.1', target.port);
        answers.push({
          code: got.code,
          msg: got.msg.replace(String(target.port), 'PORT'),
          ms: Date.now() - started,
        });
      }
      for (const a of answers) {
        expect(a).toMatchObject({
          code: Code.STATE_FORBIDS,
          msg: 'No SSH server answered at 127.0.0.1:PORT',
        });
        expect(a.ms).toBeGreaterThanOrEqual(TIMEOUT_S * 1000 - 50);
      }
      const times = answers.map((a) => a.ms);
      expect(Math.max(...times) - Math.min(...times)).toBeLessThan(1500);
      const zh = await call(server, api.sshServer.fetchFingerprint, {
        token: t,
        lang: 'zh',
        body: { host: '127.0.0.1', port: targets[0].port },
      });
      expect(zh.msg).toBe(`127.0.0.1:${targets[0].port} 上没有 SSH 服务器应答`);
      const trail = (await audits()).filter((a) => a.username === 'probe-same');
      expect(trail.map((a) => [a.result, (JSON.parse(a.details) as { reason: string }).reason])).toEqual(
        Array(4).fill(['failure', 'server.noSshServer']),
      );
    } finally {
      for (const target of targets) await target.close();
    }
  });

  it('refuses a host outside the networks the operator allowed, before connecting, audited', async () => {
    const t = await operator('probe-far');
    for (const host of ['192.0.2.10', '::1', '10.1.2.3']) {
      const started = Date.now();
      const got = await fetchKey(t, host, 22);
      expect(got.code).toBe(Code.FORBIDDEN);
      expect(got.msg).toBe(
        `host: ${host} is not in the networks this server may connect to (KSP_SSH_ALLOWED_NETWORKS, set by the operator)`,
      );
      expect(Date.now() - started).toBeLessThan(TIMEOUT_S * 1000);
    }
    const trail = (await audits()).filter((a) => a.username === 'probe-far');
    expect(trail).toHaveLength(3);
    for (const a of trail) expect(JSON.parse(a.details)).toEqual({ reason: 'server.targetNotAllowed' });
  });

  it('limits each user to a number of fetches a minute, also when they come at once, audited', async () => {
    const t = await operator('probe-many');
    const burst = await Promise.all(
      Array.from({ length: FINGERPRINT_PER_MINUTE + 5 }, () => fetchKey(t, '192.0.2.10', 22)),
    );
    const codes = burst.map((r) => r.code);
    expect(codes.filter((c) => c === Code.FORBIDDEN)).toHaveLength(FINGERPRINT_PER_MINUTE);
    const limited = burst.filter((r) => r.code === Code.STATE_FORBIDS);
    expect(limited).toHaveLength(5);
    expect(limited[0]!.msg).toMatch(
      new RegExp(`^At most ${FINGERPRINT_PER_MINUTE} host key fetches a minute`),
    );
    const reasons = (await audits())
      .filter((a) => a.username === 'probe-many')
      .map((a) => (JSON.parse(a.details) as { reason: string }).reason);
    expect(reasons.filter((r) => r === 'server.probeLimit')).toHaveLength(5);
    // Another user is not held back by it; a minute later the first one may fetch again.
    const other = await operator('probe-other');
    expect((await fetchKey(other, '127.0.0.1', sshd.port)).code).toBe(0);
    server.clock.advance(61);
    expect((await fetchKey(t, '127.0.0.1', sshd.port)).code).toBe(0);
  });
});
