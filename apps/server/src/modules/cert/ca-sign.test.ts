import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';

/** `cert/ca/sign`: a local CA signed by another, its path length, and what the root says about it. */
describe.each(await engines())('ca/sign on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let rootId: string;

  beforeAll(async () => {
    server = await startServer(engine);
    ({ token } = await initialize(server));
    rootId = (await newCa('PL Root')).id;
    const signed = await call(server, api.cert.caSelfSign, { token, body: { id: rootId, path_len: 1 } });
    expect(signed.code, signed.msg).toBe(0);
  });
  afterAll(async () => server?.close());

  async function newCa(name: string) {
    const res = await call(server, api.cert.caCreate, {
      token,
      body: { name, cn: `${name} CA`, algorithm: 'EC-P256' },
    });
    expect(res.code, res.msg).toBe(0);
    return res.data;
  }

  it("refuses a path length the parent does not allow, naming the parent's own path length", async () => {
    const child = await newCa('PL Child');
    for (const [lang, msg] of [
      [
        'en',
        "path_len: local CA 'PL Root' has path length 1, so a CA certificate it issues may have at most 0",
      ],
      ['zh', 'path_len：本地 CA“PL Root”的路径长度为 1，其签发的 CA 证书路径长度最多为 0'],
    ] as const) {
      const refused = await call(server, api.cert.caSign, {
        token,
        lang,
        body: { id: child.id, parent_id: rootId, path_len: 3 },
      });
      expect(refused).toMatchObject({ code: Code.STATE_FORBIDS, msg });
    }
    // cert/issue of an intermediate certificate says the same.
    const issued = await call(server, api.cert.issue, {
      token,
      body: { name: 'pl inter', ca_id: rootId, cn: 'pl inter', purpose: 'intermediate', path_len: 1 },
    });
    expect(issued).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "path_len: local CA 'PL Root' has path length 1, so a CA certificate it issues may have at most 0",
    });

    // Within the limit it signs; the child (path length 0) then signs no CA at all.
    const signed = await call(server, api.cert.caSign, {
      token,
      body: { id: child.id, parent_id: rootId, path_len: 0 },
    });
    expect(signed.code, signed.msg).toBe(0);
    expect(signed.data.path_len).toBe(0);
    const grandchild = await newCa('PL Grandchild');
    const tooDeep = await call(server, api.cert.caSign, {
      token,
      body: { id: grandchild.id, parent_id: child.id },
    });
    expect(tooDeep).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Local CA 'PL Child' cannot issue CA certificates (its path length is 0)",
    });
  });
});
