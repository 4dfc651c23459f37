import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, initialize, ok, startServer, type TestServer } from '../../test/harness.js';
import { startPgPair } from '../../test/pg-pair.js';
import { splitHosts } from './pg-failover.js';

describe('the hosts of a connection URL', () => {
  it("splits pg_auto_failover's multi-host URI into one URL per host, without target_session_attrs", () => {
    expect(
      splitHosts(
        'postgres://ksp:pw@10.0.0.1:5432,10.0.0.2:6432/ksp?target_session_attrs=read-write&sslmode=prefer',
      ),
    ).toEqual({
      hosts: ['10.0.0.1:5432', '10.0.0.2:6432'],
      urls: [
        'postgres://ksp:pw@10.0.0.1:5432/ksp?sslmode=prefer',
        'postgres://ksp:pw@10.0.0.2:6432/ksp?sslmode=prefer',
      ],
    });
    expect(splitHosts('postgresql://h/db').urls).toEqual(['postgresql://h/db']);
  });
});

/** A KSP node whose KSP_DATABASE_URL names a primary/standby pair of the test's own, for one describe block. */
function nodeOnAPair() {
  const on = {} as { pair: Awaited<ReturnType<typeof startPgPair>>; server: TestServer; token: string };
  beforeAll(async () => {
    on.pair = await startPgPair();
    on.server = await startServer('sqlite', { KSP_DATABASE_URL: on.pair.url });
    on.token = (await initialize(on.server)).token;
  }, 120_000);
  afterAll(async () => {
    await on.server?.close();
    await on.pair?.stop();
  });
  return on;
}

/**
 * A node follows a database failover by itself (docs/cluster.md#database-failover): two real
 * PostgreSQL servers of the test's own, a primary and its streaming standby, named together in
 * KSP_DATABASE_URL. The primary crashes: calls answer 503 with Retry-After and readiness says
 * not ready; the standby is promoted: the same node serves again, no restart, and the data
 * written before is there.
 */
describe('following a PostgreSQL failover', () => {
  const on = nodeOnAPair();

  const ready = () => on.server.app.inject({ method: 'GET', url: api.system.ready.path });

  it('answers 503 while no primary is reachable and serves from the promoted standby without a restart', async () => {
    const { pair, server, token } = on;
    const before = await ready();
    expect(before.statusCode).toBe(200);
    expect(before.json<{ data: { database: string } }>().data.database).toBe(
      `127.0.0.1:${pair.primary.port}`,
    );
    const kept = ok(
      await call(server, api.key.create, {
        token,
        body: { name: 'before-failover', algorithm: 'AES-256', usage_mask: 12 },
      }),
    ).data.id;
    const live = await server.app.inject({ method: 'GET', url: api.system.live.path });
    expect(live.statusCode).toBe(200);

    await pair.primary.crash();
    const down = await call(server, api.key.list, { token, query: { page: 1, page_size: 5 } });
    expect([down.status, down.code, down.headers['retry-after']]).toEqual([
      503,
      Code.STORAGE_UNAVAILABLE,
      '5',
    ]);
    expect(down.msg).not.toMatch(/at .*\.ts|stack/i);
    const notReady = await ready();
    expect(notReady.statusCode).toBe(503);
    expect(notReady.headers['retry-after']).toBe('5');
    // The process itself is alive: a balancer must not restart it.
    expect((await server.app.inject({ method: 'GET', url: api.system.live.path })).statusCode).toBe(200);

    await pair.standby.promote();
    let after = await ready();
    for (let i = 0; i < 100 && after.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 300));
      after = await ready();
    }
    expect(after.statusCode).toBe(200);
    expect(after.json<{ data: { database: string } }>().data.database).toBe(`127.0.0.1:${pair.standby.port}`);
    const detail = ok(await call(server, api.key.detail, { token, query: { id: kept } }));
    expect(detail.data.name).toBe('before-failover');
    ok(
      await call(server, api.key.create, {
        token,
        body: { name: 'after-failover', algorithm: 'AES-256', usage_mask: 12 },
      }),
    );
  }, 120_000);
});

/**
 * A primary that hangs instead of dying (its processes stopped: a hung machine or a cut network,
 * as KSP sees it) closes nothing: the watchdog finds it silent, the calls waiting on it answer
 * 503, and the node moves to the promoted standby by itself.
 */
describe('following a failover away from a primary that hangs', () => {
  const on = nodeOnAPair();

  it('answers the calls caught on the hung primary with 503 and serves from the promoted standby', async () => {
    const { pair, server, token } = on;
    ok(
      await call(server, api.key.create, {
        token,
        body: { name: 'before-hang', algorithm: 'AES-256', usage_mask: 12 },
      }),
    );
    await pair.primary.freeze();
    // A call made now waits on the silent primary, then is answered (503), not left hanging.
    const caught = call(server, api.key.list, { token, query: { page: 1, page_size: 5 } });
    await pair.standby.promote();
    const answer = await caught;
    expect([200, 503]).toContain(answer.status);
    let ready = await server.app.inject({ method: 'GET', url: api.system.ready.path });
    for (let i = 0; i < 150 && ready.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      ready = await server.app.inject({ method: 'GET', url: api.system.ready.path });
    }
    expect(ready.json<{ data: { database: string } }>().data.database).toBe(`127.0.0.1:${pair.standby.port}`);
    const listed = ok(await call(server, api.key.list, { token, query: { page: 1, page_size: 50 } }));
    expect(listed.data.data.map((k) => k.name)).toContain('before-hang');
  }, 120_000);
});
