import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';

describe.each(await engines())('roles on %s', (engine) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startServer(engine);
    ({ token } = await initialize(server));
  });
  afterAll(async () => server?.close());

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
