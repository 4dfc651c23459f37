import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, initialize, startServer, type TestServer } from '../../test/harness.js';

/**
 * The load balancer's checks (docs/cluster.md#health-checks): readiness says ready only once the
 * node can serve and has just written to its database; liveness answers whatever the state.
 * A database that cannot be reached is pg-failover.test.ts's (real PostgreSQL servers).
 */
describe('readiness and liveness', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer('sqlite', { KSP_NODE_NAME: 'ksp-health' });
  });
  afterAll(() => server?.close());

  const ready = () => server.app.inject({ method: 'GET', url: api.system.ready.path });

  it('is live but not ready before initialization, and ready once activated, writing its last contact', async () => {
    const live = await server.app.inject({ method: 'GET', url: api.system.live.path });
    expect(live.statusCode).toBe(200);
    expect(live.json<{ data: { node: string } }>().data.node).toBe('ksp-health');
    const before = await ready();
    expect(before.statusCode).toBe(503);
    expect(before.headers['retry-after']).toBe('5');
    expect(before.json<{ code: number; msg: string }>()).toMatchObject({ code: Code.NOT_INITIALIZED });
    expect(before.json<{ msg: string }>().msg).toMatch(/not initialized/i);

    const { token } = await initialize(server);
    const seenBefore = (
      await server.database.db
        .selectFrom('cluster_node')
        .select('last_seen')
        .where('name', '=', 'ksp-health')
        .executeTakeFirst()
    )?.last_seen;
    server.clock.advance(7);
    const after = await ready();
    expect(after.statusCode).toBe(200);
    expect(after.json<{ data: unknown }>().data).toEqual({
      ready: true,
      node: 'ksp-health',
      database: 'sqlite',
    });
    // The check wrote the node's row: its last contact on the dashboard is the check's time.
    const row = await server.database.db
      .selectFrom('cluster_node')
      .select('last_seen')
      .where('name', '=', 'ksp-health')
      .executeTakeFirstOrThrow();
    expect(row.last_seen).toBe(server.clock.now.toISOString());
    expect(row.last_seen).not.toBe(seenBefore);
    const summary = await call(server, api.dashboard.summary, { token });
    expect(JSON.stringify(summary.data)).toContain('ksp-health');
  });
});
