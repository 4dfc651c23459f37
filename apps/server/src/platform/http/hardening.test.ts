import { readdirSync } from 'node:fs';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { isStorageUnavailable } from '../db/storage-health.js';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';
import { unterminatedBody } from '../../test/multipart.js';

/**
 * A TCP relay between the app and PostgreSQL that the test can cut and restore: an outage
 * the way the app sees one (connections reset, new ones refused), with recovery on the same port.
 */
async function relayTo() {
  let target = { host: '127.0.0.1', port: 5432 };
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address();
        if (address && typeof address === 'object') port = address.port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await up();
  /** Points the relay at the database of `url` and returns the URL that goes through it. */
  const via = (url: string) => {
    const u = new URL(url);
    target = { host: u.hostname, port: Number(u.port || 5432) };
    u.host = `127.0.0.1:${port}`;
    return u.toString();
  };
  return { via, up, down };
}

function logLines() {
  const lines: { level: number; msg: string }[] = [];
  return {
    lines,
    stream: {
      write(line: string) {
        lines.push(JSON.parse(line) as { level: number; msg: string });
      },
    },
    count: (msg: string) => lines.filter((l) => l.msg.startsWith(msg)).length,
  };
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f0a9a50000000049454e44ae426082',
  'hex',
);

describe('storage errors that a retry may cure', () => {
  it('are told apart from other database errors, on both engines', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      '57P01',
      '57P03',
      '08006',
      '08001',
      '3D000',
      'SQLITE_BUSY',
      'SQLITE_IOERR_WRITE',
      'SQLITE_CANTOPEN',
    ])
      expect(isStorageUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(isStorageUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isStorageUnavailable(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])),
    ).toBe(true);
    expect(isStorageUnavailable(new Error('wrapped', { cause: { code: '57P01' } }))).toBe(true);
    for (const code of ['23505', '42P01', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', undefined])
      expect(isStorageUnavailable(Object.assign(new Error('syntax'), { code }))).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
  });
});

describe.each(await engines())('HTTP hardening on %s', (engine) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('marks every API answer, success or error, and every error answer Cache-Control: no-store', async () => {
    server = await startServer(engine);
    const { token } = await initialize(server);
    const answers = [
      await server.app.inject({ method: 'GET', url: api.system.status.path }),
      await server.app.inject({ method: 'GET', url: api.user.info.path, headers: { token } }),
      await server.app.inject({ method: 'GET', url: api.user.info.path }), // 401
      await server.app.inject({ method: 'GET', url: '/v1/ksp/no/such/call' }), // 404
      await server.app.inject({
        method: 'POST',
        url: api.system.activate.path,
        headers: { 'content-type': 'application/json' },
        payload: '{"username":',
      }),
      await server.app.inject({ method: 'POST', url: '/not-api', payload: 'x' }), // 404 outside /v1
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 401, 404, 200, 404]);
    for (const a of answers) expect(a.headers['cache-control']).toBe('no-store');
  });

  it('answers a write only after the SQLite WAL is flushed to disk, unless configured to NORMAL', async () => {
    server = await startServer(engine);
    if (engine === 'sqlite') {
      const flushes = server.database.walSync!;
      const before = flushes.count;
      const { token } = await initialize(server);
      const created = await call(server, api.key.create, {
        token,
        body: { name: 'durable', algorithm: 'AES-256', usage_mask: 12 },
      });
      expect(created.code).toBe(0);
      expect(flushes.count).toBeGreaterThan(before);
      // Reads wait for no flush.
      const settled = flushes.count;
      expect((await call(server, api.key.list, { token, query: { page: 1, page_size: 10 } })).code).toBe(0);
      expect(flushes.count).toBe(settled);
      await server.close();
      server = await startServer(engine, { KSP_SQLITE_SYNCHRONOUS: 'normal' });
      expect(server.database.walSync).toBeUndefined();
      const normal = await sql<{ synchronous: number }>`pragma synchronous`.execute(server.database.db);
      expect(normal.rows[0]?.synchronous).toBe(1);
    }
    expect((await call(server, api.system.status)).code).toBe(0);
  });

  // SQLite's own flush is what the test holds; PostgreSQL flushes inside its server.
  if (engine === 'sqlite')
    it('answers successful operations at commit, but changes, failed checks and (with KSP_OPERATION_RECORDS=disk) every operation only once on disk', async () => {
      let hold = false;
      const held: (() => void)[] = [];
      const flushWal = () => (hold ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve());
      const release = () => {
        for (const resolve of held.splice(0)) resolve();
      };
      const settles = async (p: Promise<unknown>) =>
        Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 150))]);
      for (const records of ['commit', 'disk'] as const) {
        server = await startServer(engine, { KSP_OPERATION_RECORDS: records }, undefined, undefined, {
          flushWal,
        });
        const { token } = await initialize(server);
        const key = await call(server, api.key.create, {
          token,
          body: { name: 'held', algorithm: 'AES-256', usage_mask: 12 },
        });
        const plaintext = Buffer.from('hello').toString('base64');
        const sealed = await call(server, api.crypto.encrypt, {
          token,
          body: { key_id: key.data.id, plaintext },
        });
        hold = true;
        // A successful operation: answered at commit by default, after the flush with 'disk'.
        const encrypt = call(server, api.crypto.encrypt, { token, body: { key_id: key.data.id, plaintext } });
        expect(await settles(encrypt)).toBe(records === 'commit');
        // A failed check always waits for the disk.
        const altered = Buffer.from(sealed.data.ciphertext, 'base64');
        altered[altered.length - 1]! ^= 1;
        const failed = call(server, api.crypto.decrypt, {
          token,
          body: { ciphertext: altered.toString('base64') },
        });
        expect(await settles(failed)).toBe(false);
        // So does every change.
        const created = call(server, api.key.create, {
          token,
          body: { name: 'held-2', algorithm: 'AES-256', usage_mask: 12 },
        });
        expect(await settles(created)).toBe(false);
        hold = false;
        release();
        expect((await encrypt).code).toBe(0);
        expect((await failed).code).toBe(Code.INVALID);
        expect((await created).code).toBe(0);
        await server.close();
        server = undefined;
      }
    });

  it('answers a malformed multipart upload with code 4000 naming the field and rule, in the caller language', async () => {
    server = await startServer(engine);
    const { token } = await initialize(server);
    const boundary = '----ksp-hardening';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`;
    const upload = (contentType: string, payload: Buffer, lang = 'en') =>
      server!.app.inject({
        method: 'POST',
        url: api.config.upload.path,
        headers: { token, 'content-type': contentType, 'accept-language': lang },
        payload,
      });
    const whole = Buffer.concat([Buffer.from(head), PNG, Buffer.from(`\r\n--${boundary}--\r\n`)]);

    const noBoundary = await upload('multipart/form-data', whole);
    expect(noBoundary.statusCode).toBe(200);
    expect(noBoundary.json()).toMatchObject({
      code: Code.INVALID,
      msg: 'file: the multipart body is malformed (the Content-Type header has no boundary)',
    });
    const noBoundaryZh = await upload('multipart/form-data', whole, 'zh-CN');
    expect(noBoundaryZh.json()).toMatchObject({
      code: Code.INVALID,
      msg: 'file：multipart 请求体格式错误（Content-Type 头缺少 boundary）',
    });

    const truncated = Buffer.concat([Buffer.from(head), PNG.subarray(0, 20)]);
    for (const [lang, msg] of [
      [
        'en',
        'file: the multipart body is malformed (a part is truncated or the closing boundary is missing)',
      ],
      ['zh', 'file：multipart 请求体格式错误（某个部分被截断或缺少结束 boundary）'],
    ] as const) {
      const res = await upload(`multipart/form-data; boundary=${boundary}`, truncated, lang);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ code: Code.INVALID, msg });
    }
    // A cut inside the part headers is also the caller's fault.
    const cutHeader = await upload(
      `multipart/form-data; boundary=${boundary}`,
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-da`),
    );
    expect(cutHeader.json()).toMatchObject({ code: Code.INVALID });
    expect(cutHeader.json<{ msg: string }>().msg).toMatch(/^file: /);

    // The well-formed upload still works.
    const ok = await upload(`multipart/form-data; boundary=${boundary}`, whole);
    expect(ok.json()).toMatchObject({ code: 0, data: { key: 'logo' } });
  });

  it('answers an upload whose part ends without its closing boundary after the route took it with 4000 naming file, on every upload route', async () => {
    server = await startServer(engine);
    const { token } = await initialize(server);
    const boundary = '----ksp-cut';
    const head = (filename: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const cases = [
      { path: api.config.upload.path, body: `${head('logo.png')}\x89PNG\r\n\x1a\n` },
      { path: api.backup.upload.path, body: `${head('b.kspb')}KSPB archive cut short` },
    ];
    const publicBefore = await call(server, api.config.outlist, {});
    for (const { path, body } of cases) {
      for (const [lang, msg] of [
        [
          'en',
          'file: the multipart body is malformed (a part is truncated or the closing boundary is missing)',
        ],
        ['zh-CN', 'file：multipart 请求体格式错误（某个部分被截断或缺少结束 boundary）'],
      ] as const) {
        // Streamed: the part reaches the route, then the body ends ("Part terminated early").
        const res = await server.app.inject({
          method: 'POST',
          url: path,
          headers: {
            token,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'accept-language': lang,
          },
          payload: unterminatedBody(body),
        });
        expect(res.statusCode, `${path} ${res.body}`).toBe(200);
        expect(res.json(), path).toMatchObject({ code: Code.INVALID, msg });
      }
    }
    // Nothing half-written: no backup listed, no partial archive left, no logo stored.
    const backups = await call(server, api.backup.list, { token, query: {} });
    expect(backups.data.total).toBe(0);
    const leftovers = readdirSync(server.dataDir, { recursive: true }).map(String);
    expect(leftovers.filter((f) => f.endsWith('.part'))).toEqual([]);
    expect((await call(server, api.config.outlist, {})).data).toEqual(publicBefore.data);
  });
});

// The outage is staged with a relay in front of PostgreSQL; SQLite has no connection to lose
// (its SQLITE_BUSY/IOERR codes are covered by the classification test above).
describe.each((await engines()).filter((e) => e === 'postgres'))('storage outage on %s', (engine) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 503 + Retry-After with code 5031 while PostgreSQL is unreachable, logs once per outage, recovers without restart', async () => {
    const log = logLines();
    const relay = await relayTo();
    server = await startServer(engine, {}, undefined, undefined, {
      logStream: log.stream,
      databaseUrl: (url) => relay.via(url),
    });
    const { token } = await initialize(server);
    const outageLine = 'storage unavailable';
    const expectUnavailable = async (lang: string, msg: string) => {
      for (const ask of [
        () =>
          server!.app.inject({
            method: 'GET',
            url: api.system.status.path,
            headers: { 'accept-language': lang },
          }),
        () =>
          server!.app.inject({
            method: 'GET',
            url: api.dashboard.summary.path,
            headers: { token, 'accept-language': lang },
          }),
      ]) {
        const res = await ask();
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.json()).toEqual({ code: Code.STORAGE_UNAVAILABLE, msg, data: null });
      }
    };

    await relay.down();
    await expectUnavailable('en', 'Storage unavailable, retry in 5 seconds');
    await expectUnavailable('zh-CN', '存储暂不可用，请 5 秒后重试');
    expect(log.count(outageLine)).toBe(1);
    expect(log.lines.filter((l) => l.level >= 50)).toEqual([]); // no "unexpected error" with a stack

    await relay.up();
    expect((await call(server, api.dashboard.summary, { token })).code).toBe(0);
    await vi.waitFor(() => expect(log.count('storage available again')).toBe(1), { timeout: 5000 });

    await relay.down();
    await expectUnavailable('en', 'Storage unavailable, retry in 5 seconds');
    expect(log.count(outageLine)).toBe(2);
    await relay.up();
    expect((await call(server, api.system.status)).code).toBe(0);
  });
});
