import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage, type Input } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';
import { auditRecords } from '../../test/fixtures.js';
import {
  HealthTests,
  absorbEntropy,
  aptCutoff,
  dropEntropyPool,
  entropyPoolActive,
  mixEntropyInto,
  rctCutoff,
} from '../../platform/crypto/entropy.js';

const MiB = 1024 * 1024;

describe('SP 800-90B health tests', () => {
  it('use the standard cut-offs (90B Table 2 at α = 2⁻²⁰, window 512) and 2⁻³⁰ by default', () => {
    const table: [number, number, number][] = [
      [0.5, 41, 410],
      [1, 21, 311],
      [2, 11, 177],
      [4, 6, 62],
      [8, 4, 13],
    ];
    for (const [h, rct, apt] of table) {
      expect(rctCutoff(h, -20)).toBe(rct);
      expect(aptCutoff(h, -20)).toBe(apt);
    }
    expect(rctCutoff(7)).toBe(1 + Math.ceil(30 / 7));
    expect(aptCutoff(7)).toBeGreaterThan(aptCutoff(7, -20));
    expect(() => rctCutoff(0)).toThrow(RangeError);
    expect(() => aptCutoff(8.5)).toThrow(RangeError);
  });

  it('pass 4 MiB of OS randomness and catch a stuck and a biased source', () => {
    const healthy = new HealthTests(7);
    for (let i = 0; i < 4; i++) expect(healthy.check(randomBytes(MiB))).toBeNull();
    // Stuck: the same byte again and again fails the Repetition Count Test at its cut-off.
    const stuck = new HealthTests(7).check(Buffer.alloc(64, 0x41));
    expect(stuck?.failure).toBe('rct');
    expect(stuck?.detail).toContain(`repeated ${rctCutoff(7)} times`);
    // Biased without repeats: 0x00 every fourth byte fails the Adaptive Proportion Test.
    const biased = randomBytes(4096);
    for (let i = 0; i < biased.length; i++) {
      if (i % 4 === 0) biased[i] = 0;
      else if (biased[i] === 0) biased[i] = 1;
    }
    expect(new HealthTests(7).check(biased)?.failure).toBe('apt');
    // The state carries over blocks: a run split across two blocks still counts.
    const split = new HealthTests(7);
    expect(split.check(Buffer.concat([randomBytes(100), Buffer.alloc(2, 7)]))).toBeNull();
    expect(split.check(Buffer.alloc(rctCutoff(7), 7))?.failure).toBe('rct');
  });

  it('mix the pool into outputs only while it is active', () => {
    dropEntropyPool();
    expect(mixEntropyInto(Buffer.alloc(32)).equals(Buffer.alloc(32))).toBe(true);
    absorbEntropy(randomBytes(1024));
    expect(entropyPoolActive()).toBe(true);
    const first = mixEntropyInto(Buffer.alloc(32));
    const second = mixEntropyInto(Buffer.alloc(32));
    expect(first.equals(Buffer.alloc(32))).toBe(false);
    expect(first.equals(second)).toBe(false);
    dropEntropyPool();
    expect(mixEntropyInto(Buffer.alloc(32)).equals(Buffer.alloc(32))).toBe(true);
  });
});

describe.each(await engines())('the quantum entropy source on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let dir: string;
  let healthy: string;
  let stuck: string;
  let goesStuck: string;
  let qrng: Server;
  let qrngUrl: string;
  let qrngBroken = false;

  beforeAll(async () => {
    server = await startServer(engine);
    ({ token } = await initialize(server));
    dir = mkdtempSync(join(tmpdir(), 'ksp-quantum-'));
    healthy = join(dir, 'healthy.bin');
    writeFileSync(healthy, randomBytes(4 * MiB));
    stuck = join(dir, 'stuck.bin');
    writeFileSync(stuck, Buffer.alloc(MiB, 0x41));
    goesStuck = join(dir, 'goes-stuck.bin');
    writeFileSync(goesStuck, Buffer.concat([randomBytes(4096), Buffer.alloc(MiB, 0)]));
    qrng = createServer((req, res) => {
      if (qrngBroken) return void res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(randomBytes(8192));
    });
    await new Promise<void>((resolve) => qrng.listen(0, '127.0.0.1', resolve));
    qrngUrl = `http://127.0.0.1:${(qrng.address() as AddressInfo).port}/random`;
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => qrng?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const update = (body: Input<typeof api.quantum.update>) =>
    call(server, api.quantum.update, { token, body });
  const auditOf = (action: string) => auditRecords(server, action);

  it('starts disabled, and refuses endpoints that cannot be a source with the field and rule', async () => {
    const state = (await call(server, api.quantum.status, { token })).data;
    expect(state).toMatchObject({ enabled: false, status: 'disabled', bytes_consumed: 0, min_entropy: 7 });
    expect((await call(server, api.quantum.test, { token })).msg).toBe('No entropy source is configured');
    const cases: [Parameters<typeof update>[0], RegExp][] = [
      [{ enabled: true, source_type: 'file', endpoint: '' }, /^endpoint: give the device/],
      [
        { enabled: true, source_type: 'file', endpoint: 'relative.bin' },
        /^endpoint: a device or file path must be absolute/,
      ],
      [
        { enabled: true, source_type: 'file', endpoint: join(dir, 'none.bin') },
        /does not exist or cannot be read/,
      ],
      [{ enabled: true, source_type: 'device', endpoint: healthy }, /is not a character device/],
      [{ enabled: true, source_type: 'file', endpoint: '/dev/urandom' }, /is not a regular file/],
      [
        { enabled: true, source_type: 'network', endpoint: 'ftp://qrng.example/' },
        /http:\/\/ or https:\/\/ URL/,
      ],
      [{ enabled: true, source_type: 'file', endpoint: healthy, min_entropy: 9 }, /min_entropy/],
      [{ enabled: true, source_type: 'file', endpoint: healthy, block_bytes: 10 }, /block_bytes/],
    ];
    for (const [body, message] of cases) {
      const answer = await update(body);
      expect(answer.code, JSON.stringify(body)).toBe(Code.INVALID);
      expect(answer.msg).toMatch(message);
    }
    expect((await call(server, api.quantum.status, { token })).data.status).toBe('disabled');
  });

  it('enables a healthy file source after its start-up tests, mixes it in, and tests it again', async () => {
    const enabled = await update({
      enabled: true,
      source_type: 'file',
      endpoint: healthy,
      block_bytes: 2048,
    });
    expect(enabled.code, enabled.msg).toBe(0);
    expect(enabled.data).toMatchObject({ status: 'normal', failure: null, source_type: 'file' });
    expect(enabled.data.bytes_consumed).toBeGreaterThanOrEqual(4096);
    expect(enabled.data.rct_cutoff).toBe(rctCutoff(7));
    expect(entropyPoolActive()).toBe(true);
    const tested = (await call(server, api.quantum.test, { token })).data;
    expect(tested).toMatchObject({ ok: true, failure: null, bytes: 4096 });
    expect(tested.state.bytes_consumed).toBe(enabled.data.bytes_consumed + 4096);
    expect(tested.state.throughput).toBeGreaterThan(0);
    expect((await auditOf('quantum.update')).at(-1)).toMatchObject({ result: 'success', username: 'admin' });
  });

  it('refuses to switch to a stuck source and keeps the healthy one in use', async () => {
    const refused = await update({ enabled: true, source_type: 'file', endpoint: stuck });
    expect(refused.code).toBe(Code.INVALID);
    expect(refused.msg).toMatch(/^The source failed its start-up tests \(rct\): byte 0x41 repeated/);
    const state = (await call(server, api.quantum.status, { token })).data;
    expect(state).toMatchObject({ status: 'normal', endpoint: healthy });
    expect((await auditOf('quantum.update')).at(-1)).toMatchObject({ result: 'failure' });
  });

  it('turns invalid when the source goes stuck: the alarm is audited, the pool dropped, OS entropy goes on', async () => {
    // 4 KiB of good bytes pass the start-up tests, then the file is all zeros.
    const enabled = await update({
      enabled: true,
      source_type: 'file',
      endpoint: goesStuck,
      block_bytes: 4096,
    });
    expect(enabled.data.status, enabled.msg).toBe('normal');
    const tested = (await call(server, api.quantum.test, { token })).data;
    expect(tested).toMatchObject({ ok: false, failure: 'rct' });
    expect(tested.state).toMatchObject({ status: 'invalid', failure: 'rct' });
    expect(tested.state.failures).toBeGreaterThanOrEqual(1);
    expect(entropyPoolActive()).toBe(false);
    const alarms = await auditOf('quantum.invalid');
    expect(alarms.at(-1)).toMatchObject({ result: 'failure', username: 'system' });
    expect(String(alarms.at(-1)?.details)).toContain('rct');
    // Keys are still made (from the OS's entropy alone).
    const key = await call(server, api.key.create, {
      token,
      body: { name: 'after-qrng-failure', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    expect(key.code, key.msg).toBe(0);
    // Another test of the same stuck source raises no second alarm.
    await call(server, api.quantum.test, { token });
    expect(await auditOf('quantum.invalid')).toHaveLength(alarms.length);
  });

  it('reads a network QRNG and a character device, and reports an unreachable one', async () => {
    const network = await update({ enabled: true, source_type: 'network', endpoint: qrngUrl });
    expect(network.data, network.msg).toMatchObject({ status: 'normal', source_type: 'network' });
    qrngBroken = true;
    const down = (await call(server, api.quantum.test, { token })).data;
    expect(down).toMatchObject({ ok: false, failure: 'unreachable' });
    expect(down.detail).toContain('HTTP 503');
    qrngBroken = false;
    // A good start-up test brings the source back.
    expect((await call(server, api.quantum.test, { token })).data.state.status).toBe('normal');
    const device = await update({ enabled: true, source_type: 'device', endpoint: '/dev/urandom' });
    expect(device.data, device.msg).toMatchObject({ status: 'normal', source_type: 'device' });
    const off = await update({ enabled: false });
    expect(off.data).toMatchObject({ status: 'disabled', endpoint: '/dev/urandom' });
    expect(entropyPoolActive()).toBe(false);
  });
});
