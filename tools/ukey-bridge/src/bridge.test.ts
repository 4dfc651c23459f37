import { verify, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestToken, softhsmAvailable, type TestToken } from './softhsm-token.js';
import { spawnBridge, type SpawnedBridge } from './test-bridge.js';

const CONSOLE = 'http://127.0.0.1:8080';

if (!softhsmAvailable()) {
  if (process.env.CI === 'true')
    throw new Error('SoftHSM2 and OpenSC are required in CI (Debian softhsm2, opensc)');
  console.warn(
    '\n!!! softhsm2/opensc not installed: UKEY bridge suite cannot run (apt-get install softhsm2 opensc) !!!\n',
  );
}

describe.runIf(softhsmAvailable())('the UKEY bridge with a SoftHSM2 token', () => {
  let token: TestToken;
  let bridge: SpawnedBridge;
  let url: string;

  beforeAll(async () => {
    token = createTestToken('alice-ukey');
    bridge = await spawnBridge(token.conf, CONSOLE);
    url = bridge.url;
  });
  afterAll(() => {
    bridge?.stop();
    token?.remove();
  });

  const post = (body: unknown, origin = CONSOLE) =>
    fetch(`${url}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify(body),
    });

  it('lists the token and hands out its certificate', async () => {
    const status = (await (await fetch(`${url}/status`, { headers: { origin: CONSOLE } })).json()) as {
      tokens: { label: string; serial: string }[];
    };
    expect(status.tokens).toHaveLength(1);
    expect(status.tokens[0]?.label).toBe('ksp-ukey');
    const res = await fetch(`${url}/certificate`, { headers: { origin: CONSOLE } });
    expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const cert = (await res.json()) as { certificate: string; serial: string };
    expect(new X509Certificate(cert.certificate).subject).toBe('CN=alice-ukey');
    expect(cert.serial).toBe(status.tokens[0]?.serial);
  });

  it('signs with the right PIN a signature the certificate verifies, and refuses a wrong PIN', async () => {
    const wrong = await post({ pin: '000000', data: 'challenge' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'The PIN is incorrect' });
    const res = await post({ pin: token.pin, data: 'a1b2c3' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { signature: string; certificate: string };
    const key = new X509Certificate(body.certificate).publicKey;
    const sig = Buffer.from(body.signature, 'base64');
    expect(verify('sha256', Buffer.from('a1b2c3'), { key, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
    expect(verify('sha256', Buffer.from('a1b2c4'), { key, dsaEncoding: 'ieee-p1363' }, sig)).toBe(false);
  });

  it('answers only the console origins it was given, and checks its input', async () => {
    const foreign = await post({ pin: token.pin, data: 'x' }, 'http://evil.example');
    expect(foreign.status).toBe(403);
    const preflight = await fetch(`${url}/sign`, {
      method: 'OPTIONS',
      headers: { origin: CONSOLE, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect((await post({ pin: token.pin })).status).toBe(400);
    expect((await post({ pin: token.pin, data: 'x', serial: 'no-such-serial' })).status).toBe(404);
  });
});
