import { describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, callUnchecked, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f0a9a50000000049454e44ae426082',
  'hex',
);

function multipart(file: Buffer, filename: string, type: string, field = 'file') {
  const boundary = '----ksp-test-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(await engines())('configuration on %s', (engine) => {
  let server: TestServer;
  let token: string;
  signedInServer(engine, (started) => ({ server, token } = started), { each: true });

  it('lists entries a page at a time under data.data, with version and logo', async () => {
    const res = await call(server, api.config.list, { token, query: { page: 1, page_size: 20 } });
    expect(res.code).toBe(0);
    expect(res.data.total).toBe(5);
    const version = res.data.data.find((e) => e.key === 'version');
    expect(version).toMatchObject({ value: 'v1.9.0', built_in: true, read_only: true, public: true });
    expect(res.data.data.some((e) => e.key === 'logo')).toBe(true);
    for (let i = 0; i < 25; i++) {
      await call(server, api.config.add, {
        token,
        body: { key: `k${String(i).padStart(2, '0')}`, value: String(i) },
      });
    }
    const page2 = await call(server, api.config.list, { token, query: { page: 2, page_size: 20 } });
    expect(page2.data.total).toBe(30);
    expect(page2.data.data).toHaveLength(10);
    const filtered = await call(server, api.config.list, {
      token,
      query: { page: 1, page_size: 20, key: 'k1' },
    });
    expect(filtered.data.total).toBe(10);
    const tooBig = await call(server, api.config.list, { token, query: { page: 1, page_size: 5000 } });
    expect(tooBig).toMatchObject({ code: Code.INVALID, msg: 'page_size: must be at most 1000' });
  });

  it('adds, edits and deletes entries with clear refusals', async () => {
    const added = await call(server, api.config.add, {
      token,
      body: { key: 'support.phone', value: '+86 10 1234', public: true },
    });
    expect(added.code).toBe(0);
    const dup = await call(server, api.config.add, { token, body: { key: 'support.phone', value: 'x' } });
    expect(dup).toMatchObject({
      code: Code.CONFLICT,
      msg: "Configuration key 'support.phone' already exists",
    });
    const builtInKey = await call(server, api.config.add, { token, body: { key: 'title', value: 'x' } });
    expect(builtInKey.code).toBe(Code.CONFLICT);
    const badKey = await call(server, api.config.add, { token, body: { key: '1 bad key', value: 'x' } });
    expect(badKey).toMatchObject({ code: Code.INVALID, msg: 'key: has characters that are not allowed' });

    const edited = await call(server, api.config.edit, {
      token,
      body: { id: added.data.id, value: '+86 10 9999' },
    });
    expect(edited.data.value).toBe('+86 10 9999');
    const out = await call(server, api.config.outlist);
    expect(out.data).toContainEqual({ key: 'support.phone', value: '+86 10 9999' });

    const list = await call(server, api.config.list, { token, query: { page: 1, page_size: 20 } });
    const byKey = (k: string) => list.data.data.find((e) => e.key === k)!;
    const edit = (key: string, value: string) =>
      callUnchecked(server, api.config.edit, { token, body: { id: byKey(key).id, value } });
    expect(await edit('version', 'v9')).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Configuration entry 'version' is read-only",
    });
    expect(await edit('MFA', 'yes')).toMatchObject({
      code: Code.INVALID,
      msg: "value: MFA must be '0' (off) or '1' (UKEY required)",
    });
    expect((await edit('title', '   ')).msg).toBe('value: the title must be 1 to 64 characters');
    expect((await edit('title', 'x'.repeat(65))).code).toBe(Code.INVALID);
    expect((await edit('UKEY_BRIDGE', 'javascript:alert(1)')).msg).toMatch(/^value: the UKEY bridge/);
    expect((await edit('UKEY_BRIDGE', 'http://127.0.0.1:41415')).code).toBe(0);
    expect((await edit('logo', 'https://evil.example/x.png')).msg).toMatch(/^value: the logo/);
    expect((await edit('logo', '')).code).toBe(0);
    expect((await edit('title', 'Acme KMS')).code).toBe(0);
    // Nothing half-written: the refused values left the entries as they were.
    const after = await call(server, api.config.list, { token, query: { page: 1, page_size: 20 } });
    expect(after.data.data.find((e) => e.key === 'MFA')?.value).toBe(byKey('MFA').value);
    const builtIn = await call(server, api.config.delete, {
      token,
      body: { ids: [byKey('title').id, added.data.id] },
    });
    expect(builtIn).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Built-in configuration entry 'title' cannot be deleted",
    });
    expect((await call(server, api.config.outlist)).data.some((e) => e.key === 'support.phone')).toBe(true);
    const empty = await call(server, api.config.delete, { token, body: { ids: [] } });
    expect(empty).toMatchObject({ code: Code.INVALID, msg: 'ids: must have at least 1 item(s)' });
    const deleted = await call(server, api.config.delete, { token, body: { ids: [added.data.id] } });
    expect(deleted.data).toEqual({ deleted: 1 });
    const gone = await call(server, api.config.edit, { token, body: { id: added.data.id, value: 'x' } });
    expect(gone.code).toBe(Code.NOT_FOUND);

    const audit = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'username'])
      .where('action', 'like', 'config.%')
      .orderBy('at')
      .execute();
    // One record per change made: the add, the edit, the three accepted checked values, the delete.
    expect(audit.map((a) => a.action).sort()).toEqual([
      'config.add',
      'config.delete',
      ...Array<string>(4).fill('config.edit'),
    ]);
    expect(audit.every((a) => a.username === 'admin')).toBe(true);
  });

  it('takes a logo upload checked by its content and size', async () => {
    const ok = await server.app.inject({
      method: 'POST',
      url: api.config.upload.path,
      headers: { token, ...multipart(PNG, 'logo.png', 'image/png').headers },
      payload: multipart(PNG, 'logo.png', 'image/png').payload,
    });
    expect(ok.json()).toMatchObject({ code: 0, data: { key: 'logo' } });
    const out = await call(server, api.config.outlist);
    expect(out.data.find((e) => e.key === 'logo')?.value).toBe(
      `data:image/png;base64,${PNG.toString('base64')}`,
    );

    const fake = multipart(Buffer.from('#!/bin/sh\necho hi\n'), 'logo.png', 'image/png');
    const bad = await server.app.inject({
      method: 'POST',
      url: api.config.upload.path,
      headers: { token, ...fake.headers },
      payload: fake.payload,
    });
    expect(bad.json()).toMatchObject({
      code: Code.INVALID,
      msg: 'file: the logo must be a PNG, JPEG, WebP or SVG image',
    });

    const huge = multipart(Buffer.concat([PNG, Buffer.alloc(300 * 1024)]), 'big.png', 'image/png');
    const big = await server.app.inject({
      method: 'POST',
      url: api.config.upload.path,
      headers: { token, ...huge.headers },
      payload: huge.payload,
    });
    expect(big.json()).toMatchObject({ code: Code.INVALID, msg: 'file: the file is larger than 256 KB' });

    const wrongField = multipart(PNG, 'logo.png', 'image/png', 'picture');
    const nofile = await server.app.inject({
      method: 'POST',
      url: api.config.upload.path,
      headers: { token, ...wrongField.headers },
      payload: wrongField.payload,
    });
    expect(nofile.json()).toMatchObject({ code: Code.INVALID });
    const unauth = await server.app.inject({
      method: 'POST',
      url: api.config.upload.path,
      headers: fake.headers,
      payload: fake.payload,
    });
    expect(unauth.statusCode).toBe(401);
  });
});
