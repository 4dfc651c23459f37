import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, passwordClasses } from '@ksp/contracts';
import {
  ADMIN,
  call,
  callUnchecked,
  domainWithAdmin,
  engines,
  login,
  type TestServer,
} from '../../test/harness.js';
import { auditRecords, userWithRole } from '../../test/fixtures.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';
import { selfSignedEc } from '../../test/openssl.js';
import { generatePassword } from './credential.value.js';

const SECRET = 'Sup3r-Secret-Value-0f-The-DB';

describe('generated passwords', () => {
  it('have the asked length and at least one character of each chosen class, and nothing else', () => {
    for (let i = 0; i < 200; i++) {
      const length = 8 + (i % 121);
      const pw = generatePassword({ length, lower: true, upper: true, digits: true, symbols: i % 2 === 0 });
      expect(pw).toHaveLength(length);
      expect(/[a-z]/.test(pw) && /[A-Z]/.test(pw) && /[0-9]/.test(pw)).toBe(true);
      const symbols = [...pw].some((c) => passwordClasses.symbols.includes(c));
      expect(symbols).toBe(i % 2 === 0);
    }
    expect(generatePassword({ length: 8, lower: false, upper: false, digits: true, symbols: false })).toMatch(
      /^[0-9]{8}$/,
    );
    // Two draws of 20 characters are never the same.
    expect(generatePassword({ length: 20, lower: true, upper: true, digits: true, symbols: true })).not.toBe(
      generatePassword({ length: 20, lower: true, upper: true, digits: true, symbols: true }),
    );
  });
});

describe.each(await engines())('credentials on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let dir: string;
  const pem: Record<string, string> = {};

  beforeAll(async () => {
    // The suite makes more SMS servers than the community limit (1) allows.
    ({ server, token } = await licensedServer(engine, testLicenseKeys()));
    dir = mkdtempSync(join(tmpdir(), 'ksp-cred-'));
    selfSignedEc(dir, { key: 'a.key', cert: 'a.crt', cn: 'a.example', days: 30 });
    selfSignedEc(dir, { key: 'b.key', cert: 'b.crt', cn: 'b.example', days: 30 });
    const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'id')], {
      encoding: 'utf8',
    });
    if (keygen.status !== 0) throw new Error(`ssh-keygen: ${keygen.stderr}`);
    for (const f of ['a.key', 'a.crt', 'b.key', 'b.crt', 'id']) pem[f] = readFileSync(join(dir, f), 'utf8');
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const create = (name: string, type: string, value: string, lang = 'en', t = token) =>
    callUnchecked(server, api.credential.create, { token: t, lang, body: { name, type, value } });
  const audits = (action: string) => auditRecords(server, action);

  it('creates a credential whose value is sealed: the database, the answers and the audit never hold it', async () => {
    const made = await call(server, api.credential.create, {
      token,
      body: {
        name: 'db-root',
        description: 'the database root password',
        tags: ['prod', 'db', 'prod'],
        type: 'password',
        value: SECRET,
        rotation_days: 90,
      },
    });
    expect(made.code, made.msg).toBe(0);
    expect(made.data).toMatchObject({
      name: 'db-root',
      tags: ['db', 'prod'],
      type: 'password',
      current_version: 1,
      rotation_days: 90,
      server_id: null,
      expired: false,
      created_by: ADMIN.username,
    });
    expect(JSON.stringify(made.data)).not.toContain(SECRET);
    const detail = await call(server, api.credential.detail, { token, query: { id: made.data.id } });
    expect(detail.data.versions).toEqual([
      expect.objectContaining({ version: 1, current: true, created_by: ADMIN.username }),
    ]);
    expect(JSON.stringify(detail.data)).not.toContain(SECRET);
    const stored = await server.database.db.selectFrom('credential_version').selectAll().execute();
    const everything = JSON.stringify(stored) + JSON.stringify(await audits('credential.create'));
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect((await audits('credential.create'))[0]).toMatchObject({ result: 'success', target: 'db-root' });
    // Nor the database files themselves (SQLite: the file and its WAL, raw, Base64 and hex).
    if (engine === 'sqlite') {
      const file = Buffer.concat(
        ['ksp.sqlite', 'ksp.sqlite-wal']
          .filter((f) => existsSync(join(server.dataDir, f)))
          .map((f) => readFileSync(join(server.dataDir, f))),
      );
      expect(file.length).toBeGreaterThan(0);
      for (const form of [
        SECRET,
        Buffer.from(SECRET).toString('base64'),
        Buffer.from(SECRET).toString('hex'),
      ])
        expect(file.includes(Buffer.from(form))).toBe(false);
    }
    const again = await create('db-root', 'password', 'x');
    expect(again.code).toBe(Code.CONFLICT);
  });

  it('lists with the list kit and filters by name, type and tag', async () => {
    await create('github-token', 'api-key', 'ghp_abc');
    await create('settings', 'key-value', '{"user":"svc","password":"p"}');
    const list = (query: Record<string, string | number>) =>
      callUnchecked(server, api.credential.list, { token, query: { page: 1, page_size: 10, ...query } });
    const all = await list({});
    expect(all.data.total).toBe(3);
    expect(all.data.data.map((r) => r.name)).toEqual(['db-root', 'github-token', 'settings']);
    expect((await list({ name: 'git' })).data.data.map((r) => r.name)).toEqual(['github-token']);
    expect((await list({ type: 'key-value' })).data.data.map((r) => r.name)).toEqual(['settings']);
    expect((await list({ tag: 'prod' })).data.data.map((r) => r.name)).toEqual(['db-root']);
    expect((await list({ tag: 'pro' })).data.total).toBe(0);
    const page2 = await list({ page: 2, page_size: 2 });
    expect(page2.data).toMatchObject({ total: 3, data: [expect.objectContaining({ name: 'settings' })] });
  });

  it('checks the value against its type, naming the field in English and Chinese, without echoing it', async () => {
    const ok = async (name: string, type: string, value: string) => {
      const r = await create(name, type, value);
      expect(r.code, `${name}: ${r.msg}`).toBe(0);
    };
    await ok('ssh-pkcs8', 'ssh-private-key', pem['a.key']!);
    await ok('ssh-openssh', 'ssh-private-key', pem['id']!);
    await ok('tls-a', 'certificate-and-key', pem['a.crt']! + pem['a.key']!);
    const notKey = await create('bad-ssh', 'ssh-private-key', 'hunter2-not-a-key');
    expect(notKey.code).toBe(Code.INVALID);
    expect(notKey.msg).toBe('value: not a PEM private key that can be read (no PRIVATE KEY block)');
    const zh = await create('bad-ssh', 'ssh-private-key', 'hunter2-not-a-key', 'zh');
    expect(zh.msg).toBe('value：不是可读取的 PEM 私钥（no PRIVATE KEY block）');
    const garbled = pem['a.key']!.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA');
    expect((await create('bad-ssh', 'ssh-private-key', garbled)).msg).toMatch(
      /^value: not a PEM private key/,
    );
    const mismatch = await create('tls-x', 'certificate-and-key', pem['a.crt']! + pem['b.key']!);
    expect(mismatch.msg).toBe('value: the private key does not match the certificate');
    expect((await create('tls-x', 'certificate-and-key', pem['a.key']!)).msg).toMatch(
      /^value: no readable PEM certificate/,
    );
    expect((await create('tls-x', 'certificate-and-key', pem['a.crt']!, 'zh')).msg).toMatch(
      /^value：证书之后没有可读取的 PEM 私钥/,
    );
    const notJson = await create('kv', 'key-value', '{hunter2');
    expect(notJson.msg).toBe('value: must be a JSON object whose values are strings (not JSON)');
    expect(notJson.msg).not.toContain('hunter2');
    expect((await create('kv', 'key-value', '{"a":1}')).msg).toBe(
      'value: must be a JSON object whose values are strings (key "a" is not a string)',
    );
    expect((await create('kv', 'key-value', '["a"]', 'zh')).msg).toBe(
      'value：必须是值均为字符串的 JSON 对象（not an object）',
    );
    const names = (await call(server, api.credential.list, { token, query: { page: 1, page_size: 50 } })).data
      .data;
    expect(names.map((r) => r.name)).not.toContain('kv');
  });

  it('keeps versions: a new version becomes current, older ones stay revealable', async () => {
    const id = (
      await call(server, api.credential.list, { token, query: { page: 1, page_size: 10, name: 'db-root' } })
    ).data.data[0]!.id;
    const v2 = await call(server, api.credential.addVersion, { token, body: { id, value: `${SECRET}-2` } });
    expect(v2.code, v2.msg).toBe(0);
    expect(v2.data.current_version).toBe(2);
    const detail = await call(server, api.credential.detail, { token, query: { id } });
    expect(detail.data.versions.map((v) => [v.version, v.current])).toEqual([
      [2, true],
      [1, false],
    ]);
    const current = await call(server, api.credential.reveal, {
      token,
      body: { id, password: ADMIN.password },
    });
    expect(current.data).toMatchObject({
      version: 2,
      value: `${SECRET}-2`,
      name: 'db-root',
      type: 'password',
    });
    const first = await call(server, api.credential.reveal, {
      token,
      body: { id, version: 1, password: ADMIN.password },
    });
    expect(first.data).toMatchObject({ version: 1, value: SECRET });
    const none = await call(server, api.credential.reveal, {
      token,
      body: { id, version: 7, password: ADMIN.password },
    });
    expect(none.code).toBe(Code.NOT_FOUND);
    // A new version of a typed credential is checked like the first.
    const ssh = (
      await call(server, api.credential.list, { token, query: { page: 1, page_size: 10, name: 'ssh-pkcs8' } })
    ).data.data[0]!.id;
    const bad = await call(server, api.credential.addVersion, { token, body: { id: ssh, value: 'nope' } });
    expect(bad.msg).toMatch(/^value: not a PEM private key/);
    // Metadata changes keep the value.
    const renamed = await call(server, api.credential.update, {
      token,
      body: { id, name: 'db-root-2', tags: ['x'], expires_at: '2000-01-01T00:00:00Z' },
    });
    expect(renamed.data).toMatchObject({ name: 'db-root-2', tags: ['x'], current_version: 2, expired: true });
    const after = await call(server, api.credential.reveal, {
      token,
      body: { id, password: ADMIN.password },
    });
    expect(after.data.value).toBe(`${SECRET}-2`);
  });

  it('audits every reveal with who and which version, and refuses and audits a wrong password', async () => {
    const id = (
      await call(server, api.credential.list, { token, query: { page: 1, page_size: 10, name: 'db-root' } })
    ).data.data[0]!.id;
    const wrong = await call(server, api.credential.reveal, {
      token,
      body: { id, password: 'not-my-password' },
    });
    expect(wrong.code).toBe(Code.INVALID);
    expect(wrong.msg).toBe('password: incorrect password');
    expect(wrong.data).toBeNull();
    const zh = await call(server, api.credential.reveal, {
      token,
      lang: 'zh',
      body: { id, password: 'nope' },
    });
    expect(zh.msg).toBe('password：密码错误');
    const trail = await audits('credential.reveal');
    expect(trail.filter((a) => a.result === 'success').map((a) => JSON.parse(a.details) as unknown)).toEqual([
      { version: 2 },
      { version: 1 },
      { version: 2 },
    ]);
    expect(trail.every((a) => a.username === ADMIN.username)).toBe(true);
    const failures = trail.filter((a) => a.result === 'failure');
    expect(failures).toHaveLength(2);
    expect(JSON.parse(failures[0]!.details)).toEqual({ reason: 'wrong password' });
    expect(JSON.stringify(trail)).not.toContain(SECRET);
    // The admin's failed count went up, as a failed sign-in would.
    const admin = await server.database.db
      .selectFrom('app_user')
      .select('failed_login_count')
      .where('username', '=', ADMIN.username)
      .executeTakeFirstOrThrow();
    expect(admin.failed_login_count).toBe(2);
    await login(server, ADMIN.username, ADMIN.password);
  });

  it('locks the account after as many wrong reveal passwords as the sign-in lockout allows', async () => {
    const fin = await domainWithAdmin(server, token, {
      domain: 'lockers',
      username: 'lock-me',
      password: 'Lock-Pass-1',
    });
    const made = await create('mine', 'password', 'v', 'en', fin.token);
    const policy = (await call(server, api.passwordPolicy.get, { token })).data;
    const codes: number[] = [];
    for (let i = 0; i < policy.max_failed_attempts; i++)
      codes.push(
        (
          await call(server, api.credential.reveal, {
            token: fin.token,
            body: { id: made.data.id, password: 'bad' },
          })
        ).code,
      );
    expect(codes.every((c) => c === Code.INVALID)).toBe(true);
    const locked = await call(server, api.credential.reveal, {
      token: fin.token,
      body: { id: made.data.id, password: 'Lock-Pass-1' },
    });
    expect(locked.code).toBe(Code.ACCOUNT_LOCKED);
    await expect(login(server, 'lock-me', 'Lock-Pass-1')).rejects.toThrow();
  });

  it('serves the SMS sub-console token and refuses the permissions a role lacks', async () => {
    const sms = await call(server, api.user.ssmToken, { token });
    expect(sms.code).toBe(0);
    const list = await call(server, api.credential.list, {
      token: sms.data.token,
      query: { page: 1, page_size: 5 },
    });
    expect(list.code).toBe(0);
    expect(
      (await call(server, api.key.list, { token: sms.data.token, query: { page: 1, page_size: 5 } })).code,
    ).toBe(Code.FORBIDDEN);
    // An Auditor reads the metadata but neither writes nor reveals.
    const { token: aud } = await userWithRole(server, token, {
      role: 'Auditor',
      username: 'cred-auditor',
      password: 'Audit-Pass-1',
      email: 'a@example.test',
    });
    const rows = await call(server, api.credential.list, { token: aud, query: { page: 1, page_size: 50 } });
    expect(rows.code).toBe(0);
    const id = rows.data.data[0]!.id;
    expect(
      (await call(server, api.credential.reveal, { token: aud, body: { id, password: 'Audit-Pass-1' } }))
        .code,
    ).toBe(Code.FORBIDDEN);
    expect(
      (await call(server, api.credential.addVersion, { token: aud, body: { id, value: 'x' } })).code,
    ).toBe(Code.FORBIDDEN);
    expect((await call(server, api.credential.generatePassword, { token: aud, body: {} })).code).toBe(
      Code.FORBIDDEN,
    );
  });

  it('lets an application read a value with its app token, audited, and nothing else', async () => {
    const secret = await call(server, api.user.updateSecret, { token, body: {} });
    const app = await call(server, api.user.appLogin, {
      body: { username: ADMIN.username, app_secret: secret.data.app_secret },
    });
    expect(app.code).toBe(0);
    const byName = await call(server, api.credential.value, {
      token: app.data.token,
      body: { name: 'github-token' },
    });
    expect(byName.code, byName.msg).toBe(0);
    expect(byName.data).toMatchObject({
      name: 'github-token',
      type: 'api-key',
      version: 1,
      value: 'ghp_abc',
    });
    const byId = await call(server, api.credential.value, {
      token: app.data.token,
      body: { id: byName.data.id },
    });
    expect(byId.data.value).toBe('ghp_abc');
    expect(
      (await call(server, api.credential.value, { token: app.data.token, body: { name: 'nope' } })).code,
    ).toBe(Code.NOT_FOUND);
    const trail = await audits('credential.read-value');
    expect(trail).toHaveLength(2);
    expect(trail[0]).toMatchObject({ result: 'success', target: 'github-token', username: ADMIN.username });
    // A console session may not use the application call, nor an app token the reveal.
    expect((await call(server, api.credential.value, { token, body: { name: 'github-token' } })).code).toBe(
      Code.FORBIDDEN,
    );
    expect(
      (
        await call(server, api.credential.reveal, {
          token: app.data.token,
          body: { id: byName.data.id, password: 'x' },
        })
      ).code,
    ).toBe(Code.FORBIDDEN);
  });

  it('keeps domains apart: another domain cannot see, reveal, change, version or delete a credential', async () => {
    const other = await domainWithAdmin(server, token, {
      domain: 'other',
      username: 'other-admin',
      password: 'Other-Pass-1',
    });
    const rootRow = (
      await call(server, api.credential.list, { token, query: { page: 1, page_size: 10, name: 'github' } })
    ).data.data[0]!;
    const t = other.token;
    const list = await call(server, api.credential.list, { token: t, query: { page: 1, page_size: 50 } });
    expect(list.data.total).toBe(0);
    expect((await call(server, api.credential.detail, { token: t, query: { id: rootRow.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect(
      (
        await call(server, api.credential.reveal, {
          token: t,
          body: { id: rootRow.id, password: 'Other-Pass-1' },
        })
      ).code,
    ).toBe(Code.NOT_FOUND);
    expect(
      (await call(server, api.credential.update, { token: t, body: { id: rootRow.id, name: 'stolen' } }))
        .code,
    ).toBe(Code.NOT_FOUND);
    expect(
      (await call(server, api.credential.addVersion, { token: t, body: { id: rootRow.id, value: 'x' } }))
        .code,
    ).toBe(Code.NOT_FOUND);
    expect((await call(server, api.credential.delete, { token: t, body: { ids: [rootRow.id] } })).code).toBe(
      Code.NOT_FOUND,
    );
    // The same name may exist in each domain; a sealed value moved to the other domain's row does not open.
    const mine = await create('github-token', 'api-key', 'other-value', 'en', t);
    expect(mine.code).toBe(0);
    const db = server.database.db;
    const rootSealed = await db
      .selectFrom('credential_version')
      .select('value_sealed')
      .where('credential_id', '=', rootRow.id)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('credential_version')
      .set({ value_sealed: rootSealed.value_sealed })
      .where('credential_id', '=', mine.data.id)
      .execute();
    const moved = await call(server, api.credential.reveal, {
      token: t,
      body: { id: mine.data.id, password: 'Other-Pass-1' },
    });
    expect(moved.code).toBe(Code.STATE_FORBIDS);
    expect(moved.msg).toBe(
      'Credential github-token version 1 cannot be opened: its sealed value was altered or moved (see the audit log)',
    );
    expect(JSON.stringify(moved)).not.toContain('ghp_abc');
    const refusedOpen = (await audits('credential.reveal')).at(-1)!;
    expect(refusedOpen).toMatchObject({ result: 'failure', username: 'other-admin' });
    expect(JSON.parse(refusedOpen.details)).toEqual({ reason: 'sealed value does not open' });
    // A domain holding credentials cannot be deleted (its KEK seals them).
    const domains = await call(server, api.domain.list, { token, query: { page: 1, page_size: 50 } });
    const otherId = domains.data.data.find((d) => d.name === 'other')!.id;
    expect((await call(server, api.domain.delete, { token, body: { ids: [otherId] } })).code).not.toBe(0);
  });

  it("names only a server of the caller's domain: another domain's server id answers 4040, audited", async () => {
    const other = await domainWithAdmin(server, token, {
      domain: 'other-servers',
      username: 'srv-other-admin',
      password: 'Other-Pass-1',
    });
    const rootCred = await call(server, api.credential.create, {
      token,
      body: { name: 'root-host-pw', type: 'password', value: 'pw-0' },
    });
    const rootServer = await call(server, api.sshServer.create, {
      token,
      body: {
        name: 'root-host',
        host: '127.0.0.1',
        port: 22,
        account: 'root',
        credential_id: rootCred.data.id,
      },
    });
    expect(rootServer.code, rootServer.msg).toBe(0);
    const foreign = rootServer.data.id;
    const t = other.token;
    const made = await call(server, api.credential.create, {
      token: t,
      body: { name: 'on-foreign', type: 'password', value: 'pw-1', server_id: foreign },
    });
    expect(made.code).toBe(Code.NOT_FOUND);
    expect(made.msg).toBe(`Server ${foreign} not found`);
    const refused = (await audits('credential.create')).at(-1)!;
    expect(refused).toMatchObject({ result: 'failure', target: 'on-foreign', username: 'srv-other-admin' });
    expect(JSON.parse(refused.details)).toEqual({ reason: 'server.notFound', server_id: foreign });
    const none = await call(server, api.credential.list, {
      token: t,
      query: { page: 1, page_size: 50, name: 'on-foreign' },
    });
    expect(none.data.total).toBe(0);
    // Linking an existing credential of the other domain to it: refused, the link unchanged.
    const own = await call(server, api.credential.create, {
      token: t,
      body: { name: 'own-cred', type: 'password', value: 'pw-2' },
    });
    expect(own.code, own.msg).toBe(0);
    const linked = await call(server, api.credential.update, {
      token: t,
      body: { id: own.data.id, server_id: foreign },
    });
    expect(linked.code).toBe(Code.NOT_FOUND);
    expect((await audits('credential.update')).at(-1)).toMatchObject({
      result: 'failure',
      target: 'own-cred',
    });
    const after = await call(server, api.credential.detail, { token: t, query: { id: own.data.id } });
    expect(after.data.server_id).toBeNull();
    // Its own server is accepted, and so is clearing the link.
    const ownPw = await call(server, api.credential.create, {
      token: t,
      body: { name: 'own-host-pw', type: 'password', value: 'pw-3' },
    });
    const mine = await call(server, api.sshServer.create, {
      token: t,
      body: { name: 'own-host', host: '127.0.0.1', port: 22, account: 'root', credential_id: ownPw.data.id },
    });
    expect(mine.code, mine.msg).toBe(0);
    const ok = await call(server, api.credential.update, {
      token: t,
      body: { id: own.data.id, server_id: mine.data.id },
    });
    expect(ok.code, ok.msg).toBe(0);
    expect(ok.data.server_id).toBe(mine.data.id);
    const cleared = await call(server, api.credential.update, {
      token: t,
      body: { id: own.data.id, server_id: null },
    });
    expect(cleared.data.server_id).toBeNull();
  });

  it('generates passwords from a policy and refuses an impossible one', async () => {
    const pw = await call(server, api.credential.generatePassword, {
      token,
      body: { length: 12, lower: false, upper: true, digits: true, symbols: false },
    });
    expect(pw.data.password).toMatch(/^[A-Z0-9]{12}$/);
    expect(/[A-Z]/.test(pw.data.password) && /[0-9]/.test(pw.data.password)).toBe(true);
    const none = await call(server, api.credential.generatePassword, {
      token,
      lang: 'zh',
      body: { lower: false, upper: false, digits: false, symbols: false },
    });
    expect(none.msg).toBe('generate-password：至少选择一种字符类别');
    const short = await callUnchecked(server, api.credential.generatePassword, {
      token,
      body: { length: 7 },
    });
    expect(short.code).toBe(Code.INVALID);
    const long = await callUnchecked(server, api.credential.generatePassword, {
      token,
      body: { length: 129 },
    });
    expect(long.code).toBe(Code.INVALID);
  });

  it('deletes credentials with every version, audited', async () => {
    const row = (
      await call(server, api.credential.list, { token, query: { page: 1, page_size: 10, name: 'db-root' } })
    ).data.data[0]!;
    const gone = await call(server, api.credential.delete, { token, body: { ids: [row.id] } });
    expect(gone.data.deleted).toBe(1);
    expect((await call(server, api.credential.detail, { token, query: { id: row.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    const left = await server.database.db
      .selectFrom('credential_version')
      .select('version')
      .where('credential_id', '=', row.id)
      .execute();
    expect(left).toEqual([]);
    expect((await audits('credential.delete')).map((a) => a.target)).toEqual(['db-root-2']);
  });
});
