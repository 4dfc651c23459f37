import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, DB_KEY_MOUNT_CHECK_PATH, DB_TOKEN_PREFIX } from '@ksp/contracts';
import {
  call,
  callUnchecked,
  domainWithAdmin,
  engines,
  initialize,
  ok,
  startServer,
  type TestServer,
} from '../../test/harness.js';

interface KvAnswer {
  data?: { data: { data: string }; metadata: { version: number } };
  errors?: string[];
  type?: string;
  options?: { version: string };
}

/** A Vault-shaped request to the key endpoint, as the MariaDB plugin makes it. */
async function kv(
  server: TestServer,
  url: string,
  token: string | null,
  extra: { method?: 'GET' | 'POST'; ip?: string } = {},
) {
  const res = await server.app.inject({
    method: extra.method ?? 'GET',
    url,
    headers: token === null ? {} : { 'x-vault-token': token },
    ...(extra.ip ? { remoteAddress: extra.ip } : {}),
  });
  return { status: res.statusCode, body: res.json<KvAnswer>(), headers: res.headers };
}

describe.each(await engines())('TDE database clients and the key endpoint on %s', (engine) => {
  let server: TestServer;
  let root: string;
  let aes: string;
  let aes2: string;
  const make = async (token: string, name: string, algorithm = 'AES-256') =>
    ok(await call(server, api.key.create, { token, body: { name, algorithm, usage_mask: 12 } as never })).data
      .id;
  /** Writes the read windows now (the server stops its timer only at close; a restart is not needed). */
  const records = async (action = 'db-key.read') => {
    // Windows end by the server's clock (the test's), then the next flush writes them.
    server.clock.advance(2);
    await new Promise((r) => setTimeout(r, 700));
    const page = ok(
      await call(server, api.log.list, { token: root, query: { page: 1, page_size: 200, action } }),
    );
    return page.data.data;
  };

  beforeAll(async () => {
    server = await startServer(engine, { KSP_DB_KEY_AUDIT_SECONDS: '1' });
    root = (await initialize(server)).token;
    aes = await make(root, 'db-key-one');
    aes2 = await make(root, 'db-key-two');
  }, 60_000);
  afterAll(() => server?.close());

  it('makes a client with a token shown once, grants keys by key id, and serves them in Vault shape', async () => {
    const made = ok(await call(server, api.tdeDatabase.create, { token: root, body: { name: 'maria-1' } }));
    expect(made.data.token.startsWith(DB_TOKEN_PREFIX)).toBe(true);
    expect(made.data.client.token_hint!.length).toBeLessThan(made.data.token.length);
    const id = made.data.client.id;
    ok(await call(server, api.tdeDatabase.grant, { token: root, body: { id, db_key_id: 1, key_id: aes } }));
    const detail = ok(
      await call(server, api.tdeDatabase.grant, { token: root, body: { id, db_key_id: 2, key_id: aes2 } }),
    ).data;
    expect(detail.grants.map((g) => [g.db_key_id, g.key_name, g.current_version])).toEqual([
      [1, 'db-key-one', 1],
      [2, 'db-key-two', 1],
    ]);
    // Neither the list nor the detail gives the token again.
    expect(
      JSON.stringify(ok(await call(server, api.tdeDatabase.list, { token: root, query: {} }))),
    ).not.toContain(made.data.token);

    const mount = await kv(server, DB_KEY_MOUNT_CHECK_PATH, made.data.token);
    expect(mount.status).toBe(200);
    expect(mount.body.options).toEqual({ version: '2' });
    const latest = await kv(server, '/v1/tde/data/1', made.data.token);
    expect(latest.status).toBe(200);
    expect(latest.body.data!.data.data).toMatch(/^[0-9a-f]{64}$/);
    expect(latest.body.data!.metadata.version).toBe(1);
    expect(latest.headers['cache-control']).toBe('no-store');
    // The key read is the key KSP holds: its check value is the one the key's detail shows.
    const { createCipheriv } = await import('node:crypto');
    const ecb = createCipheriv('aes-256-ecb', Buffer.from(latest.body.data!.data.data, 'hex'), null);
    const kcv = ecb.update(Buffer.alloc(16)).subarray(0, 3).toString('hex').toUpperCase();
    const shown = ok(await call(server, api.key.detail, { token: root, query: { id: aes } })).data as {
      kcv: string | null;
    };
    expect(shown.kcv).toBe(kcv);

    // Rotation in KSP is a new KV version; the old one stays readable by number.
    ok(await call(server, api.key.addVersion, { token: root, body: { id: aes } }));
    const rotated = await kv(server, '/v1/tde/data/1', made.data.token);
    expect(rotated.body.data!.metadata.version).toBe(2);
    expect(rotated.body.data!.data.data).not.toBe(latest.body.data!.data.data);
    const old = await kv(server, '/v1/tde/data/1?version=1', made.data.token);
    expect(old.body.data!.data.data).toBe(latest.body.data!.data.data);
    const missing = await kv(server, '/v1/tde/data/1?version=9', made.data.token);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ errors: [] });

    // Reads share one record per key version and client per window, with a count, and count in the key's use.
    for (let i = 0; i < 5; i++) await kv(server, '/v1/tde/data/2', made.data.token);
    const reads = (await records()).filter((r) => r.result === 'success' && r.target === 'db-key-two');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.count).toBe(5);
    expect(reads[0]!.source).toBe('database');
    expect(reads[0]!.username).toBe('maria-1');
    const readers = ok(
      await call(server, api.tdeDatabase.keyReaders, { token: root, query: { key_id: aes2 } }),
    ).data;
    expect(readers).toEqual([
      expect.objectContaining({ client_name: 'maria-1', db_key_id: 2, reads: 5, last_version: 1 }),
    ]);
    // The five reads count in the key's use (it has served no other operation).
    const keyRow = ok(await call(server, api.key.detail, { token: root, query: { id: aes2 } })).data;
    expect(keyRow.operations).toBe(5);
    const listed = ok(await call(server, api.tdeDatabase.list, { token: root, query: { name: 'maria-1' } }));
    expect(listed.data.data[0]!.last_read_at).not.toBeNull();
  });

  it('refuses, clearly and audited: a wrong token, a revoked one, a disabled client, an address, a key id not granted, a key not in use', async () => {
    const made = ok(
      await call(server, api.tdeDatabase.create, {
        token: root,
        body: { name: 'maria-2', ip_whitelist: ['10.1.0.0/16'] },
      }),
    ).data;
    const id = made.client.id;
    const key = await make(root, 'db-key-three');
    ok(await call(server, api.tdeDatabase.grant, { token: root, body: { id, db_key_id: 7, key_id: key } }));
    const at = (ip: string, url = '/v1/tde/data/7', token = made.token) => kv(server, url, token, { ip });

    expect((await at('10.1.2.3')).status).toBe(200);
    const address = await at('10.2.0.1');
    expect([address.status, address.body.errors![0]]).toEqual([
      403,
      expect.stringContaining('10.2.0.1 is not in the IP whitelist'),
    ]);
    const none = await kv(server, '/v1/tde/data/7', null, { ip: '10.1.2.3' });
    expect([none.status, none.body.errors![0]]).toEqual([403, expect.stringContaining('X-Vault-Token')]);
    const wrong = await at('10.1.2.3', '/v1/tde/data/7', `${DB_TOKEN_PREFIX}${'A'.repeat(43)}`);
    expect([wrong.status, wrong.body.errors![0]]).toEqual([
      403,
      expect.stringContaining('not a KSP database client token'),
    ]);
    // A console session's token is not a database token; a database token is no console token.
    expect((await at('10.1.2.3', '/v1/tde/data/7', root)).status).toBe(403);
    const rest = await server.app.inject({
      method: 'GET',
      url: api.key.list.path,
      headers: { token: made.token },
    });
    expect(rest.statusCode).toBe(401);

    const notGranted = await at('10.1.2.3', '/v1/tde/data/8');
    expect([notGranted.status, notGranted.body.errors![0]]).toEqual([
      403,
      expect.stringContaining('key id 8 is not granted to database client maria-2'),
    ]);

    ok(await call(server, api.key.disable, { token: root, body: { id: key } }));
    const disabledKey = await at('10.1.2.3');
    expect([disabledKey.status, disabledKey.body.errors![0]]).toEqual([
      403,
      expect.stringContaining('is deactivated; KSP serves keys in use only'),
    ]);
    ok(await call(server, api.key.recover, { token: root, body: { id: key } }));
    expect((await at('10.1.2.3')).status).toBe(200);

    ok(await call(server, api.tdeDatabase.update, { token: root, body: { id, enabled: false } }));
    const disabled = await at('10.1.2.3');
    expect([disabled.status, disabled.body.errors![0]]).toEqual([
      403,
      expect.stringContaining('database client maria-2 is disabled'),
    ]);
    ok(await call(server, api.tdeDatabase.update, { token: root, body: { id, enabled: true } }));

    const renewed = ok(
      await call(server, api.tdeDatabase.regenerateToken, { token: root, body: { id } }),
    ).data;
    expect((await at('10.1.2.3')).status).toBe(403);
    expect((await at('10.1.2.3', '/v1/tde/data/7', renewed.token)).status).toBe(200);
    ok(await call(server, api.tdeDatabase.revokeToken, { token: root, body: { id } }));
    expect((await at('10.1.2.3', '/v1/tde/data/7', renewed.token)).status).toBe(403);

    // In Chinese when asked.
    const zh = await server.app.inject({
      method: 'GET',
      url: '/v1/tde/data/7',
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(zh.json<KvAnswer>().errors![0]).toContain('拒绝访问');

    const refusals = (await records()).filter((r) => r.result === 'failure');
    const reasons = refusals.map((r) => r.details.reason);
    // A known client's refusals are recorded under it (its domain's administrators see them).
    expect(refusals.find((r) => r.details.reason === 'dbKey.clientDisabled')?.username).toBe('maria-2');
    for (const reason of [
      'dbKey.addressRefused',
      'dbKey.tokenMissing',
      'dbKey.tokenInvalid',
      'dbKey.notGranted',
      'dbKey.keyState',
      'dbKey.clientDisabled',
    ])
      expect(reasons, reason).toContain(reason);
    const audited = ok(
      await call(server, api.log.list, {
        token: root,
        query: { page: 1, page_size: 100, action: 'tde-database.' },
      }),
    ).data.data.map((r) => r.action);
    expect(audited).toEqual(
      expect.arrayContaining([
        'tde-database.create',
        'tde-database.grant',
        'tde-database.disable',
        'tde-database.enable',
        'tde-database.token-regenerate',
        'tde-database.token-revoke',
      ]),
    );
  });

  it('applies a change made on one node at the next read on another node', async () => {
    const other = await server.startNode();
    try {
      const made = ok(
        await call(server, api.tdeDatabase.create, { token: root, body: { name: 'maria-nodes' } }),
      ).data;
      ok(
        await call(server, api.tdeDatabase.grant, {
          token: root,
          body: { id: made.client.id, db_key_id: 1, key_id: aes },
        }),
      );
      const read = () =>
        other.app.inject({ method: 'GET', url: '/v1/tde/data/1', headers: { 'x-vault-token': made.token } });
      expect((await read()).statusCode).toBe(200);
      ok(
        await call(server, api.tdeDatabase.update, {
          token: root,
          body: { id: made.client.id, enabled: false },
        }),
      );
      expect((await read()).statusCode).toBe(403);
      ok(
        await call(server, api.tdeDatabase.update, {
          token: root,
          body: { id: made.client.id, enabled: true },
        }),
      );
      expect((await read()).statusCode).toBe(200);
      ok(
        await call(server, api.tdeDatabase.ungrant, {
          token: root,
          body: { id: made.client.id, db_key_id: 1 },
        }),
      );
      expect((await read()).statusCode).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('answers hostile and unknown requests with a clear error, never a 500', async () => {
    const made = ok(
      await call(server, api.tdeDatabase.create, { token: root, body: { name: 'maria-3' } }),
    ).data;
    const cases: [string, number][] = [
      ['/v1/tde/data/0', 400],
      ['/v1/tde/data/4294967296', 400],
      ['/v1/tde/data/-1', 400],
      ['/v1/tde/data/1e3', 400],
      // Longer than a route parameter may be: no key path at all.
      [`/v1/tde/data/${'9'.repeat(5000)}`, 404],
      ['/v1/tde/data/1?version=abc', 400],
      ['/v1/tde/data/1?version=1&version=2', 400],
      ['/v1/tde/metadata/1', 404],
      ['/v1/tde', 404],
      ['/v1/sys/mounts', 404],
      ['/v1/sys/mounts/secret/tune', 404],
      ['/v1/tde/data/%00', 400],
    ];
    for (const [url, status] of cases) {
      const res = await kv(server, url, made.token);
      expect(res.status, url).toBe(status);
      expect(res.body.errors, url).toBeDefined();
    }
    const post = await server.app.inject({
      method: 'POST',
      url: '/v1/tde/data/1',
      headers: { 'x-vault-token': made.token, 'content-type': 'application/json' },
      payload: '{"data":{"data":"00"}}',
    });
    expect(post.statusCode).toBe(405);
    expect(post.json<KvAnswer>().errors![0]).toContain('KSP serves only GET /v1/tde/data/<key id>');
    expect((await kv(server, '/v1/tde/data/1', 'x'.repeat(100_000))).status).toBe(403);
  });

  it('keeps every domain to itself: grants, clients and tokens', async () => {
    const other = await domainWithAdmin(server, root, {
      domain: 'db-other',
      username: 'db-other-admin',
      password: 'Other-Pass-1',
    });
    const theirKey = await make(other.token, 'their-key');
    const mine = ok(
      await call(server, api.tdeDatabase.create, { token: root, body: { name: 'maria-4' } }),
    ).data;
    // Another domain's key cannot be granted (it is not found here) ...
    const grant = await call(server, api.tdeDatabase.grant, {
      token: root,
      body: { id: mine.client.id, db_key_id: 1, key_id: theirKey },
    });
    expect(grant.code).toBe(Code.NOT_FOUND);
    // ... and their administrator neither sees nor touches this domain's clients.
    const theirs = ok(await call(server, api.tdeDatabase.list, { token: other.token, query: {} })).data;
    expect(theirs.data.map((c) => c.name)).not.toContain('maria-4');
    for (const [def, body] of [
      [api.tdeDatabase.update, { id: mine.client.id, enabled: false }],
      [api.tdeDatabase.regenerateToken, { id: mine.client.id }],
      [api.tdeDatabase.revokeToken, { id: mine.client.id }],
      [api.tdeDatabase.grant, { id: mine.client.id, db_key_id: 3, key_id: theirKey }],
      [api.tdeDatabase.ungrant, { id: mine.client.id, db_key_id: 1 }],
      [api.tdeDatabase.delete, { id: mine.client.id }],
    ] as const) {
      const res = await callUnchecked(server, def, { token: other.token, body });
      expect(res.code, def.path).toBe(Code.NOT_FOUND);
    }
    expect(
      (
        await callUnchecked(server, api.tdeDatabase.detail, {
          token: other.token,
          query: { id: mine.client.id },
        })
      ).code,
    ).toBe(Code.NOT_FOUND);
    expect(
      ok(await call(server, api.tdeDatabase.keyReaders, { token: other.token, query: { key_id: aes } })).data,
    ).toEqual([]);
    // Their client with key id 1 reads their key, never this domain's key id 1.
    const theirClient = ok(
      await call(server, api.tdeDatabase.create, { token: other.token, body: { name: 'maria-4' } }),
    ).data;
    ok(
      await call(server, api.tdeDatabase.grant, {
        token: other.token,
        body: { id: theirClient.client.id, db_key_id: 1, key_id: theirKey },
      }),
    );
    ok(
      await call(server, api.tdeDatabase.grant, {
        token: root,
        body: { id: mine.client.id, db_key_id: 1, key_id: aes2 },
      }),
    );
    const a = await kv(server, '/v1/tde/data/1', mine.token);
    const b = await kv(server, '/v1/tde/data/1', theirClient.token);
    expect(a.body.data!.data.data).not.toBe(b.body.data!.data.data);
  });

  it('grants only AES-256 keys in use, and answers parallel reads consistently', async () => {
    const made = ok(
      await call(server, api.tdeDatabase.create, { token: root, body: { name: 'maria-5' } }),
    ).data;
    const hmac = ok(
      await call(server, api.key.create, {
        token: root,
        body: { name: 'not-aes', algorithm: 'HMAC-SHA256', usage_mask: 0x180 } as never,
      }),
    ).data.id;
    const refused = await call(server, api.tdeDatabase.grant, {
      token: root,
      body: { id: made.client.id, db_key_id: 1, key_id: hmac },
    });
    expect([refused.code, refused.msg]).toEqual([Code.INVALID, expect.stringContaining('AES-256')]);
    const options = ok(await call(server, api.tdeDatabase.keyOptions, { token: root, query: {} })).data;
    expect(options.map((o) => o.name)).toEqual(expect.arrayContaining(['db-key-one', 'db-key-two']));
    expect(options.map((o) => o.name)).not.toContain('not-aes');
    const bad = await callUnchecked(server, api.tdeDatabase.grant, {
      token: root,
      body: { id: made.client.id, db_key_id: 0, key_id: aes },
    });
    expect(bad.code).toBe(Code.INVALID);
    ok(
      await call(server, api.tdeDatabase.grant, {
        token: root,
        body: { id: made.client.id, db_key_id: 1, key_id: aes },
      }),
    );
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => kv(server, '/v1/tde/data/1', made.token)),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.body.data!.data.data)).size).toBe(1);
    const reads = (await records()).filter((r) => r.username === 'maria-5' && r.result === 'success');
    expect(reads.reduce((n, r) => n + r.count, 0)).toBe(40);
    ok(await call(server, api.tdeDatabase.delete, { token: root, body: { id: made.client.id } }));
    expect((await kv(server, '/v1/tde/data/1', made.token)).status).toBe(403);
  });
});

describe('the key endpoint of a node that is not ready', () => {
  it('closes the connection without an answer, as an unreachable server would, so the plugin serves from its cache', async () => {
    const server = await startServer('sqlite', {}, undefined, undefined, {
      services: {
        readiness: () =>
          Promise.resolve({ ready: false, reason: 'system.sealed', params: { file: 'seal.key' } }),
      },
    });
    try {
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = server.app.server.address() as { port: number };
      const answer = await fetch(`http://127.0.0.1:${port}/v1/tde/data/1`, {
        headers: { 'x-vault-token': `${DB_TOKEN_PREFIX}${'A'.repeat(43)}` },
      }).then(
        (res) => `HTTP ${res.status}`,
        (err: Error) => `no answer (${err.message})`,
      );
      expect(answer).toMatch(/^no answer/);
      // The REST API says why, as always.
      const status = await fetch(`http://127.0.0.1:${port}${api.system.ready.path}`);
      expect(status.status).toBe(503);
    } finally {
      await server.close();
    }
  });
});
