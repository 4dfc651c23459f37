import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInWithBranch } from '../../test/fixtures.js';

/** The server form's role picker: names of the roles `terminal_roles` may hold, of the caller's domain. */
describe.each(await engines())('credential/server/role-options on %s', (engine) => {
  let server: TestServer;
  let rootToken: string;
  let otherToken: string;
  let ownRole: string;
  let otherRole: string;

  signedInWithBranch(
    engine,
    (started) =>
      ({
        server,
        token: rootToken,
        branch: { token: otherToken },
      } = started),
  );
  beforeAll(async () => {
    const own = await call(server, api.role.create, {
      token: rootToken,
      body: { name: 'terminal operators', permissions: ['credential:read'] },
    });
    expect(own.code, own.msg).toBe(0);
    ownRole = own.data.id;
    const other = await call(server, api.role.create, {
      token: otherToken,
      body: { name: 'branch terminal', permissions: ['credential:read'] },
    });
    expect(other.code, other.msg).toBe(0);
    otherRole = other.data.id;
  });

  const options = (token: string, query: Record<string, string | number>) =>
    call(server, api.sshServer.roleOptions, { token, query: { page: 1, page_size: 20, ...query } });

  it("lists the built-in roles and the domain's own by name, never another domain's", async () => {
    const mine = await options(rootToken, {});
    expect(mine.code, mine.msg).toBe(0);
    const names = mine.data.data.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(['Administrator', 'Operator', 'Auditor', 'terminal operators']),
    );
    expect(names).not.toContain('branch terminal');
    const theirs = await options(otherToken, {});
    expect(theirs.data.data.map((r) => r.name)).toContain('branch terminal');
    expect(theirs.data.data.map((r) => r.name)).not.toContain('terminal operators');
  });

  it('searches by name, pages, and names chosen ids (of its own domain only)', async () => {
    const found = await options(rootToken, { name: 'TERMINAL' });
    expect(found.data).toEqual({
      data: [{ id: ownRole, name: 'terminal operators', type: 'custom' }],
      total: 1,
    });
    // A wildcard typed is a character, not a pattern.
    expect((await options(rootToken, { name: '%' })).data.total).toBe(0);
    const first = await options(rootToken, { page_size: 2 });
    const second = await options(rootToken, { page: 2, page_size: 2 });
    expect(first.data.total).toBe(4);
    expect([...first.data.data, ...second.data.data].map((r) => r.id)).toHaveLength(4);
    const named = await options(rootToken, { ids: `${ownRole},${otherRole}` });
    expect(named.data.data.map((r) => r.id)).toEqual([ownRole]);
    // The other way round: another domain's administrator naming this domain's role learns nothing.
    const probed = await options(otherToken, { ids: `${ownRole},${otherRole}` });
    expect(probed.data.data.map((r) => r.id)).toEqual([otherRole]);
    expect(JSON.stringify(probed.data)).not.toContain('terminal operators');
  });

  it('refuses malformed ids with a clear 4000 naming the field', async () => {
    const bad = await options(rootToken, { ids: 'not-an-id' });
    expect(bad.code).toBe(Code.INVALID);
    expect(bad.msg).toContain('ids');
  });
});
