import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { allCalls, dbKeyCalls, api, builtInRoles, Code } from '@ksp/contracts';
import { call, initialize, login, roleIdByName, startServer, type TestServer } from '../../test/harness.js';

describe('HTTP surface', () => {
  let server: TestServer;
  afterEach(async () => server?.close());

  it('registers exactly the contract calls, each declaring its access', async () => {
    server = await startServer('sqlite');
    const all = server.routes.filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
    expect(all.filter((r) => !r.access)).toEqual([]);
    // The database key endpoint (Vault-shaped, docs/tde-database.md) is declared in dbKeyCalls;
    // everything else under its two prefixes answers a refusal to anyone.
    const vault = (url: string) =>
      url === '/v1/tde' || url.startsWith('/v1/tde/') || url === '/v1/sys' || url.startsWith('/v1/sys/');
    const api_ = all.filter((r) => !vault(r.url));
    for (const c of Object.values(dbKeyCalls))
      expect(all.find((r) => r.method === c.method && r.url === c.path)?.access).toBe(c.access);
    expect(
      all
        .filter((r) => vault(r.url) && !Object.values(dbKeyCalls).some((c) => c.path === r.url))
        .every((r) => r.access === 'public'),
    ).toBe(true);
    const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
    expect(new Set(api_.map(key))).toEqual(
      new Set(allCalls.map((c) => key({ method: c.method, url: c.path }))),
    );
    for (const c of allCalls)
      expect(api_.find((r) => key(r) === `${c.method} ${c.path}`)?.access).toBe(c.access);
  });

  it('refuses at start-up to register an API route without an access rule', async () => {
    server = await startServer('sqlite');
    expect(() => server.app.get('/v1/ksp/undeclared', () => 'x')).toThrow(/declares no access/);
  });

  it('checks the permission of every call against the roles of the caller', async () => {
    server = await startServer('sqlite');
    const { token: adminToken } = await initialize(server);
    const rootDomain = await server.database.db.selectFrom('domain').select('id').executeTakeFirstOrThrow();
    for (const role of ['Auditor', 'Operator'] as const) {
      await server.database.db.transaction().execute(async (trx) => {
        await server.services.users.createLocalUser(trx, {
          username: role.toLowerCase(),
          password: 'Role-Pass-1',
          email: `${role}@example.test`,
          domainIds: [rootDomain.id],
          roleIds: [await roleIdByName(trx, role)],
        });
      });
    }
    const auditor = await login(server, 'auditor', 'Role-Pass-1');
    const operator = await login(server, 'operator', 'Role-Pass-1');
    expect(
      (await call(server, api.config.list, { token: auditor, query: { page: 1, page_size: 20 } })).code,
    ).toBe(0);
    const denied = await call(server, api.config.add, { token: auditor, body: { key: 'x', value: 'y' } });
    expect(denied).toMatchObject({
      code: Code.FORBIDDEN,
      msg: 'Permission denied: config:write is required',
    });
    expect((await call(server, api.domain.create, { token: operator, body: { name: 'ops' } })).code).toBe(
      Code.FORBIDDEN,
    );
    expect((await call(server, api.domain.create, { token: adminToken, body: { name: 'ops' } })).code).toBe(
      0,
    );

    for (const [token, role] of [
      [auditor, 'Auditor'],
      [operator, 'Operator'],
    ] as const) {
      const info = await call(server, api.user.info, { token });
      expect(info.data.userinfo.permissions).toEqual([...builtInRoles[role].permissions].sort());
      // Both read everything shown so far, but the Operator not the log (who audits the operators).
      expect(info.data.menu.map((m) => m.path)).toEqual([
        '/console/dashboard',
        '/console/product',
        '/console/access',
        '/console/key',
        '/console/key/detail/:id',
        '/console/kmip',
        '/console/cert',
        ...(role === 'Auditor' ? ['/console/log'] : []),
        '/console/setting',
        '/cte',
        '/rdm',
        '/kms',
        '/credential',
        '/kadp',
      ]);
    }
    expect(builtInRoles.Operator.permissions).not.toContain('log:read');
    expect(builtInRoles.Auditor.permissions).toContain('log:read');
    expect(builtInRoles.Auditor.permissions.every((p) => p.endsWith(':read'))).toBe(true);
  });

  it('answers malformed input, unknown paths and oversized bodies with a clear envelope', async () => {
    server = await startServer('sqlite');
    const bad = await server.app.inject({
      method: 'POST',
      url: api.system.activate.path,
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    });
    expect(bad.json()).toMatchObject({ code: Code.INVALID, msg: 'body: is not valid JSON' });
    const unknown = await server.app.inject({ method: 'GET', url: '/v1/ksp/nothing/here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({
      code: Code.NOT_FOUND,
      msg: 'No such API call: GET /v1/ksp/nothing/here',
    });
    const huge = await server.app.inject({
      method: 'POST',
      url: api.system.activate.path,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'a'.repeat(2 * 1024 * 1024), password: 'b' }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.body).not.toMatch(/at .*\.js:\d+/);
  });

  it('sends security headers and the version header on every answer', async () => {
    server = await startServer('sqlite');
    const res = await server.app.inject({ method: 'GET', url: api.system.status.path });
    expect(res.headers.version).toBe('v1.9.0');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'self'");
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBeUndefined();
  });

  it('serves the SPA with a history fallback, but never for API paths', async () => {
    const web = mkdtempSync(join(tmpdir(), 'ksp-web-'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>KSP console</title>');
    writeFileSync(join(web, 'app.js'), 'console.log(1)');
    server = await startServer('sqlite', {
      KSP_WEB_DIR: web,
      KSP_FRAME_ANCESTORS: "'self' http://127.0.0.1:9000",
    });
    const deep = await server.app.inject({ method: 'GET', url: '/console/dashboard' });
    expect(deep.statusCode).toBe(200);
    expect(deep.body).toContain('KSP console');
    expect(String(deep.headers['content-security-policy'])).toContain(
      "frame-ancestors 'self' http://127.0.0.1:9000",
    );
    expect((await server.app.inject({ method: 'GET', url: '/app.js' })).body).toBe('console.log(1)');
    const api404 = await server.app.inject({ method: 'GET', url: '/v1/ksp/missing' });
    expect(api404.headers['content-type']).toMatch(/json/);
    const docs = await server.app.inject({ method: 'GET', url: '/docs/json' });
    expect(docs.json<{ paths: Record<string, unknown> }>().paths['/v1/ksp/user/login']).toBeDefined();
  });

  it("sends the console's files precompressed when the browser accepts it, and keeps hashed assets for a year", async () => {
    const web = mkdtempSync(join(tmpdir(), 'ksp-web-'));
    mkdirSync(join(web, 'assets'));
    const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>KSP console</title>');
    writeFileSync(join(web, 'assets', 'app-4f2a.js'), script);
    writeFileSync(join(web, 'assets', 'app-4f2a.js.br'), brotliCompressSync(script));
    writeFileSync(join(web, 'assets', 'app-4f2a.js.gz'), gzipSync(script));
    server = await startServer('sqlite', { KSP_WEB_DIR: web });
    const asset = (encoding?: string) =>
      server!.app.inject({
        method: 'GET',
        url: '/assets/app-4f2a.js',
        headers: encoding ? { 'accept-encoding': encoding } : {},
      });
    const br = await asset('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gz = await asset('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);
    const plain = await asset();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
    // The page itself is asked for again on every visit, so a new release shows at once.
    const page = await server.app.inject({
      method: 'GET',
      url: '/console/keys',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(page.headers['cache-control']).toBe('no-cache');
  });
});
