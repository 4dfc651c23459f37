import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import type { KspConfig } from '../../platform/config.js';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import {
  ADMIN,
  call,
  callUnchecked,
  engines,
  initialize,
  login,
  startServer,
  type TestServer,
} from '../../test/harness.js';

describe.each(await engines())('first run on %s', (engine) => {
  let server: TestServer;
  afterEach(async () => server?.close());

  it('answers 5030 to everything but the public first-run calls until initialized and activated', async () => {
    server = await startServer(engine);
    const status = await call(server, api.system.status);
    expect(status.data).toMatchObject({
      initialized: false,
      activated: false,
      sealed: false,
      version: 'v1.9.0',
    });
    const login = await call(server, api.user.login, { body: { username: 'YWRtaW4=', password: 'x' } });
    expect(login.code).toBe(Code.NOT_INITIALIZED);
    expect(login.msg).toMatch(/not initialized/);
    const zh = await call(server, api.dashboard.summary, { lang: 'zh-CN,zh;q=0.9' });
    expect(zh.code).toBe(Code.NOT_INITIALIZED);
    expect(zh.msg).toBe('系统尚未初始化，请先完成初始化');
    const out = await call(server, api.config.outlist);
    expect(out.code).toBe(0);
    expect(out.data.map((e) => e.key).sort()).toEqual(['MFA', 'UKEY_BRIDGE', 'logo', 'title', 'version']);
  });

  it('makes the root key from components shown once with their KCV, and seals it with a 0600 file', async () => {
    server = await startServer(engine);
    const components = [];
    for (let i = 1; i <= 3; i++) {
      const c = await call(server, api.system.initComponent, { body: {} });
      expect(c.data).toMatchObject({ index: i, total: 3 });
      expect(c.data.component).toMatch(/^[0-9A-F]{64}$/);
      expect(c.data.kcv).toBe(keyCheckValue('AES-256', Buffer.from(c.data.component, 'hex')));
      components.push(Buffer.from(c.data.component, 'hex'));
    }
    const extra = await call(server, api.system.initComponent, { body: {} });
    expect(extra.code).toBe(Code.STATE_FORBIDS);
    const fin = await call(server, api.system.initFinish, { body: {} });
    expect(fin.code).toBe(0);
    const root = Buffer.alloc(32);
    for (const c of components) for (let i = 0; i < 32; i++) root[i] = (root[i] ?? 0) ^ (c[i] ?? 0);
    expect(fin.data.kcv).toBe(keyCheckValue('AES-256', root));
    expect(statSync(join(server.dataDir, 'seal.key')).mode & 0o777).toBe(0o600);
    const again = await call(server, api.system.initFinish, { body: {} });
    expect(again.code).toBe(Code.CONFLICT);

    // Neither the components nor the root key are anywhere in the database.
    if (engine === 'sqlite') {
      await server.database.close();
      const file = readFileSync(join(server.dataDir, 'ksp.sqlite'));
      const wal = (() => {
        try {
          return readFileSync(join(server.dataDir, 'ksp.sqlite-wal'));
        } catch {
          return Buffer.alloc(0);
        }
      })();
      for (const secret of [...components, root]) {
        for (const blob of [file, wal]) {
          expect(blob.includes(secret)).toBe(false);
          expect(blob.includes(Buffer.from(secret.toString('hex').toUpperCase()))).toBe(false);
          expect(blob.includes(Buffer.from(secret.toString('base64')))).toBe(false);
        }
      }
      server = await server.restart();
    } else {
      const rows = await server.database.db.selectFrom('system_state').selectAll().execute();
      const dump = JSON.stringify(rows);
      for (const secret of [...components, root]) {
        expect(dump.includes(secret.toString('hex').toUpperCase())).toBe(false);
        expect(dump.includes(secret.toString('base64'))).toBe(false);
      }
    }
    expect((await call(server, api.system.status)).data).toMatchObject({
      initialized: true,
      activated: false,
    });
  });

  it('lets a custodian restart the generation, and refuses to finish early', async () => {
    server = await startServer(engine);
    const first = await call(server, api.system.initComponent, { body: { total: 2 } });
    expect(first.data).toMatchObject({ index: 1, total: 2 });
    const early = await call(server, api.system.initFinish, { body: {} });
    expect(early.code).toBe(Code.STATE_FORBIDS);
    expect(early.msg).toBe('Only 1 of 2 key components have been generated');
    const restarted = await call(server, api.system.initComponent, { body: { total: 4, restart: true } });
    expect(restarted.data).toMatchObject({ index: 1, total: 4 });
    expect((await call(server, api.system.status)).data).toMatchObject({
      components_generated: 1,
      components_total: 4,
    });
    const bad = await call(server, api.system.initComponent, { body: { total: 12 } });
    expect(bad.code).toBe(Code.INVALID);
    expect(bad.msg).toBe('total: must be at most 9');
  });

  it('activates once with a policy-checked first administrator, then the system is ready', async () => {
    server = await startServer(engine);
    const beforeInit = await call(server, api.system.activate, { body: ADMIN });
    expect(beforeInit.code).toBe(Code.STATE_FORBIDS);
    for (let i = 0; i < 3; i++) await call(server, api.system.initComponent, { body: {} });
    await call(server, api.system.initFinish, { body: {} });
    const weak = await call(server, api.system.activate, { body: { ...ADMIN, password: 'short' } });
    expect(weak.code).toBe(Code.INVALID);
    expect(weak.msg).toMatch(/^Password does not meet the rules!/);
    const badMail = await call(server, api.system.activate, { body: { ...ADMIN, email: 'nope' } });
    expect(badMail).toMatchObject({ code: Code.INVALID, msg: 'email: must be a valid email' });
    const missing = await callUnchecked(server, api.system.activate, {
      body: { password: ADMIN.password, email: ADMIN.email },
    });
    expect(missing).toMatchObject({ code: Code.INVALID, msg: 'username: is required' });
    const ok = await call(server, api.system.activate, { body: ADMIN });
    expect(ok).toMatchObject({ code: 0, data: { username: 'admin' } });
    const twice = await call(server, api.system.activate, { body: { ...ADMIN, username: 'other' } });
    expect(twice.code).toBe(Code.CONFLICT);
    expect((await call(server, api.system.status)).data).toMatchObject({
      initialized: true,
      activated: true,
      sealed: false,
    });
    const token = await login(server, ADMIN.username, ADMIN.password);
    const info = await call(server, api.user.info, { token });
    expect(info.data.userinfo).toMatchObject({ name: 'admin', domain: 'root', roles: ['Administrator'] });
  });

  it('stays usable across a restart, and is sealed (5030) when the seal file is missing or wrong', async () => {
    server = await startServer(engine);
    await initialize(server);
    server = await server.restart();
    const token = await login(server, ADMIN.username, ADMIN.password);
    expect((await call(server, api.dashboard.summary, { token })).code).toBe(0);

    const sealPath = join(server.dataDir, 'seal.key');
    const seal = readFileSync(sealPath);
    rmSync(sealPath);
    server = await server.restart();
    const status = await call(server, api.system.status);
    expect(status.data).toMatchObject({ initialized: true, activated: true, sealed: true });
    const sealed = await call(server, api.user.login, { body: { username: 'YWRtaW4=', password: 'x' } });
    expect(sealed.code).toBe(Code.NOT_INITIALIZED);
    expect(sealed.msg).toContain('seal.key');

    writeFileSync(sealPath, `ksp-seal-v1:${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
    server = await server.restart();
    expect((await call(server, api.system.status)).data.sealed).toBe(true);

    writeFileSync(sealPath, seal, { mode: 0o600 });
    server = await server.restart();
    expect((await call(server, api.system.status)).data.sealed).toBe(false);
    expect(await login(server, ADMIN.username, ADMIN.password)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe.each(await engines())('first run on a network address, on %s', (engine) => {
  let server: TestServer;
  afterEach(async () => server?.close());
  const networked = { config: (c: KspConfig) => ({ ...c, host: '0.0.0.0' }) };
  const start = () => startServer(engine, {}, undefined, undefined, networked);

  it('needs the one-time setup code for every first-run call, audits refusals, and retires the code', async () => {
    server = await start();
    const file = join(server.dataDir, 'setup-code');
    const code = server.setupCode!;
    expect(code).toMatch(/^([0-9A-F]{4}-){7}[0-9A-F]{4}$/);
    expect(readFileSync(file, 'utf8').trim()).toBe(code);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await call(server, api.system.status)).data.setup_code_required).toBe(true);

    const missing = await call(server, api.system.initComponent, { body: {} });
    expect(missing).toMatchObject({ code: Code.FORBIDDEN, status: 200 });
    expect(missing.msg).toMatch(/^setup_code: the one-time setup code is missing or wrong/);
    const wrongZh = await call(server, api.system.initComponent, {
      body: { setup_code: 'AAAA-BBBB' },
      lang: 'zh-CN',
    });
    expect(wrongZh.code).toBe(Code.FORBIDDEN);
    expect(wrongZh.msg).toMatch(/^setup_code：一次性设置码缺失或错误/);
    // Typed back loosely: lower case, spaces instead of dashes.
    const loose = code.toLowerCase().replaceAll('-', ' ');
    for (let i = 0; i < 3; i++) {
      const c = await call(server, api.system.initComponent, { body: { setup_code: loose } });
      expect(c.code).toBe(0);
    }
    expect((await call(server, api.system.initFinish, { body: {} })).code).toBe(Code.FORBIDDEN);
    expect((await call(server, api.system.initFinish, { body: { setup_code: code } })).code).toBe(0);
    expect((await call(server, api.system.activate, { body: ADMIN })).code).toBe(Code.FORBIDDEN);
    const wrong = await call(server, api.system.activate, {
      body: { ...ADMIN, setup_code: code.replace(/.$/, (d) => (d === '0' ? '1' : '0')) },
    });
    expect(wrong.code).toBe(Code.FORBIDDEN);
    expect((await call(server, api.system.activate, { body: { ...ADMIN, setup_code: code } })).code).toBe(0);

    expect(existsSync(file)).toBe(false);
    expect((await call(server, api.system.status)).data).toMatchObject({
      activated: true,
      setup_code_required: false,
    });
    const refusals = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'result', 'target'])
      .where('result', '=', 'failure')
      .orderBy('at')
      .execute();
    expect(refusals.map((r) => [r.action, r.target])).toEqual([
      ['system.init.component', 'setup code'],
      ['system.init.component', 'setup code'],
      ['system.init.finish', 'setup code'],
      ['system.activate', 'setup code'],
      ['system.activate', 'setup code'],
    ]);
    // The first run is a call from the console (or a client of the API), not the server's own work.
    const firstRun = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'source'])
      .where('area', '=', 'system')
      .execute();
    expect(firstRun.length).toBe(10);
    expect(firstRun.filter((r) => r.source !== 'web')).toEqual([]);
    await login(server, ADMIN.username, ADMIN.password);

    // Once activated, a restart issues no code and leaves no file.
    server = await server.restart();
    expect(server.setupCode).toBeNull();
    expect(existsSync(file)).toBe(false);
    expect((await call(server, api.system.status)).data.setup_code_required).toBe(false);
  });

  it('issues a new code at each start until activation; the old one stops working', async () => {
    server = await start();
    const first = server.setupCode!;
    server = await server.restart();
    const second = server.setupCode!;
    expect(second).not.toBe(first);
    expect(readFileSync(join(server.dataDir, 'setup-code'), 'utf8').trim()).toBe(second);
    expect((await call(server, api.system.initComponent, { body: { setup_code: first } })).code).toBe(
      Code.FORBIDDEN,
    );
    expect((await call(server, api.system.initComponent, { body: { setup_code: second } })).code).toBe(0);
  });

  it('needs no code on loopback', async () => {
    server = await startServer(engine);
    expect(server.setupCode).toBeNull();
    expect(existsSync(join(server.dataDir, 'setup-code'))).toBe(false);
    expect((await call(server, api.system.status)).data.setup_code_required).toBe(false);
  });
});
