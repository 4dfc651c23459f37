import { generateKeyPairSync } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './agent.js';
import { AgentState } from './state.js';
import { PATHS, UNKNOWN_CLIENT_MESSAGE } from './wire.js';

const CLIENT_ID = '00000000-0000-4000-8000-00000000a9e7';

/** A stand-in for KSP's agent calls: heartbeats answered as `heartbeat` says, config calls held. */
function fakeServer(heartbeat: (n: number) => object) {
  const seen = { heartbeats: 0, acknowledged: false, configCalls: 0, configClosed: 0 };
  const held = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: string };
      const payload = JSON.parse(body.payload) as { acknowledge_delete?: boolean; wait_s?: number };
      res.setHeader('content-type', 'application/json');
      if (req.url === PATHS.heartbeat) {
        if (payload.acknowledge_delete) seen.acknowledged = true;
        else seen.heartbeats += 1;
        res.end(JSON.stringify(heartbeat(seen.heartbeats)));
        return;
      }
      // The config call: held for wait_s, answered unchanged.
      seen.configCalls += 1;
      held.add(res);
      res.on('close', () => {
        held.delete(res);
        if (!res.writableEnded) seen.configClosed += 1;
      });
      const answer = {
        code: 0,
        msg: '',
        data: {
          state: 'enrolled',
          changed: false,
          config: { client_id: CLIENT_ID, version: 0, profile: null, guard_points: [], keys: [] },
        },
      };
      setTimeout(() => res.end(JSON.stringify(answer)), (payload.wait_s ?? 0) * 1000).unref();
    });
  });
  return {
    seen,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
      }),
  };
}

const enrolled = (_n?: number) => ({
  code: 0,
  msg: '',
  data: { state: 'enrolled', heartbeat_seconds: 60, certificate_pem: 'CERT', heartbeat_port: null },
});

async function until<T>(what: string, probe: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the daemon (run)', () => {
  let dir: string;
  let state: AgentState;
  let fake: ReturnType<typeof fakeServer> | undefined;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksp-agent-run-'));
    state = new AgentState(join(dir, 'state'));
    state.ensureDir();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    state.write('agent.key', privateKey.export({ format: 'pem', type: 'pkcs8' }));
    state.write('agent.pem', 'CERT');
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(async () => {
    process.off('warning', onWarning);
    await fake?.close();
    fake = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (heartbeat: (n: number) => object) => {
    fake = fakeServer(heartbeat);
    const server = await fake.listen();
    state.saveIdentity({ server, client_id: CLIENT_ID, name: 'a', type: 'tde', heartbeat_seconds: 60 });
    return fake;
  };

  it('adds no abort listener per heartbeat or call: many rounds, no MaxListenersExceededWarning', async () => {
    const { seen } = await start(enrolled);
    const controller = new AbortController();
    const running = run(state, {
      heartbeatSeconds: 0.005,
      waitSeconds: 0,
      scanMs: 5,
      signal: controller.signal,
    });
    // Dozens of heartbeats, config calls and sleeps on the same signal.
    await until('many rounds', () => seen.heartbeats >= 60 && seen.configCalls >= 30);
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    controller.abort();
    await running;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a heartbeat answering deleted: acknowledges, abandons the held config call and stops at once', async () => {
    const { seen } = await start((n) =>
      n < 3 ? enrolled(n) : { ...enrolled(n), data: { ...enrolled(n).data, state: 'deleted' } },
    );
    const running = run(state, { heartbeatSeconds: 0.05, waitSeconds: 20 });
    await until('the config call to be held', () => seen.configCalls >= 1);
    await until('the deleted answer', () => seen.heartbeats >= 3);
    const answeredAt = Date.now();
    await running;
    expect(Date.now() - answeredAt).toBeLessThan(2000);
    expect(seen.acknowledged).toBe(true);
    await until('the held call to be closed', () => seen.configClosed === 1);
  });

  it('a heartbeat answering that the client is unknown (force-deleted): stops at once', async () => {
    const { seen } = await start((n) =>
      n < 2 ? enrolled(n) : { code: 4001, msg: UNKNOWN_CLIENT_MESSAGE, data: null },
    );
    const running = run(state, { heartbeatSeconds: 0.05, waitSeconds: 20 });
    await until('the unknown answer', () => seen.heartbeats >= 2);
    const answeredAt = Date.now();
    await running;
    expect(Date.now() - answeredAt).toBeLessThan(2000);
    expect(seen.heartbeats).toBe(2);
    await until('the held call to be closed', () => seen.configClosed === 1);
  });
});
