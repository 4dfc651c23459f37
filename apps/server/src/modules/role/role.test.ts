import { describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, domainWithAdmin, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

describe.each(await engines())('roles on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started));

  it('accepts an update that names only the role: nothing changes, no error', async () => {
    const created = await call(server, api.role.create, {
      token,
      body: { name: 'Readers', description: 'Read keys', permissions: ['key:read'] },
    });
    expect(created.code, created.msg).toBe(0);
    const same = await call(server, api.role.update, { token, body: { id: created.data.id } });
    expect(same.code, same.msg).toBe(0);
    expect(same.data).toMatchObject({ name: 'Readers', description: 'Read keys', permissions: ['key:read'] });
    // A change still applies.
    const renamed = await call(server, api.role.update, {
      token,
      body: { id: created.data.id, description: 'Reads keys' },
    });
    expect(renamed.data).toMatchObject({ name: 'Readers', description: 'Reads keys' });
  });

  it('names roles per domain: two domains may share a name, one domain may not have it twice', async () => {
    const east = await domainWithAdmin(server, token, {
      domain: 'east',
      username: 'east-admin',
      password: 'East-Pass-1',
    });
    const west = await domainWithAdmin(server, token, {
      domain: 'west',
      username: 'west-admin',
      password: 'West-Pass-1',
    });
    const mk = (t: string, name: string) =>
      call(server, api.role.create, { token: t, body: { name, permissions: ['key:read'] } });
    const inEast = await mk(east.token, 'Key auditors');
    expect(inEast.code, inEast.msg).toBe(0);
    // West does not learn that east has the name: its own role of that name is made.
    const inWest = await mk(west.token, 'Key auditors');
    expect(inWest.code, inWest.msg).toBe(0);
    expect(inWest.data.id).not.toBe(inEast.data.id);
    // Root may have one too.
    expect((await mk(token, 'Key auditors')).code).toBe(0);
    // Twice in one domain: refused.
    const twice = await mk(east.token, 'Key auditors');
    expect(twice).toMatchObject({ code: Code.CONFLICT, msg: "Role 'Key auditors' already exists" });
    // A built-in role's name is every domain's.
    expect((await mk(west.token, 'Operator')).code).toBe(Code.CONFLICT);
    // Renaming onto a name of the domain is refused; onto another domain's name is not.
    const other = await mk(west.token, 'Cert readers');
    const clash = await call(server, api.role.update, {
      token: west.token,
      body: { id: other.data.id, name: 'Key auditors' },
    });
    expect(clash.code).toBe(Code.CONFLICT);
    const eastOnly = await mk(east.token, 'East only');
    expect(eastOnly.code).toBe(0);
    const renamed = await call(server, api.role.update, {
      token: west.token,
      body: { id: other.data.id, name: 'East only' },
    });
    expect(renamed.code, renamed.msg).toBe(0);
    // Each domain lists its own role of the shared name, and the built-in ones once.
    for (const t of [east.token, west.token]) {
      const list = await call(server, api.role.list, { token: t, query: { page: 1, page_size: 100 } });
      const names = list.data.data.map((r) => r.name);
      expect(names.filter((n) => n === 'Key auditors')).toHaveLength(1);
      expect(names.filter((n) => n === 'Administrator')).toHaveLength(1);
    }
    // The unique index itself holds (a write that skipped the check still fails).
    const db = server.database.db;
    const dup = db
      .insertInto('role')
      .values({
        id: '00000000-0000-4000-8000-0000000000aa',
        name: 'Key auditors',
        description: '',
        type: 'custom',
        permissions: '[]',
        domain_id: east.domainId,
        created_at: new Date().toISOString(),
      })
      .execute();
    await expect(dup).rejects.toThrow();
  });

  it('accepts a domain update that names only the domain', async () => {
    const created = await call(server, api.domain.create, {
      token,
      body: { name: 'still', description: 'unchanged' },
    });
    expect(created.code, created.msg).toBe(0);
    const same = await call(server, api.domain.update, { token, body: { id: created.data.id } });
    expect(same.code, same.msg).toBe(0);
    expect(same.data).toMatchObject({ name: 'still', description: 'unchanged' });
    const missing = await call(server, api.domain.update, {
      token,
      body: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.code).toBe(Code.NOT_FOUND);
  });
});
