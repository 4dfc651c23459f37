import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

/** openssl without blocking the event loop: `ocsp -url` calls this very server. */
function opensslAsync(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    execFile('openssl', args, { cwd, encoding: 'utf8' }, (_err, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
}

/** `cert/ca/sign`: a local CA signed by another, its path length, and what the root says about it. */
describe.each(await engines())('ca/sign on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let rootId: string;
  let base: string;
  let dir: string;

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    base = await server.app.listen({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'ksp-ca-sign-'));
    rootId = (await newCa('PL Root')).id;
    const signed = await call(server, api.cert.caSelfSign, { token, body: { id: rootId, path_len: 1 } });
    expect(signed.code, signed.msg).toBe(0);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

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

  it("the root's OCSP responder answers good, then revoked, for a CA it signed with ca/sign (openssl ocsp)", async () => {
    const root = await call(server, api.cert.caDetail, { token, query: { id: rootId } });
    writeFileSync(join(dir, 'root.pem'), root.data.certificate_pem!);
    const pending = await newCa('OCSP Inter');
    const inter = await call(server, api.cert.caSign, { token, body: { id: pending.id, parent_id: rootId } });
    expect(inter.code, inter.msg).toBe(0);
    writeFileSync(join(dir, 'inter.pem'), inter.data.certificate_pem!);
    // For comparison, the same root's intermediate made by cert/issue.
    const issued = await call(server, api.cert.issue, {
      token,
      body: { name: 'issued inter', ca_id: rootId, cn: 'issued inter', purpose: 'intermediate' },
    });
    expect(issued.code, issued.msg).toBe(0);
    writeFileSync(join(dir, 'issued.pem'), issued.data.certificate_pem);

    const ocsp = (cert: string) =>
      opensslAsync(
        [
          'ocsp',
          '-issuer',
          'root.pem',
          '-cert',
          cert,
          '-url',
          `${base}/pki/ocsp/${rootId}`,
          '-CAfile',
          'root.pem',
        ],
        dir,
      );
    expect(await ocsp('issued.pem')).toMatch(/issued.pem: good/);
    const good = await ocsp('inter.pem');
    expect(good).toMatch(/Response verify OK/);
    expect(good).toMatch(/inter.pem: good/);

    // It is one of the root's certificates: listed under it, and revocable like any other.
    const listed = await call(server, api.cert.list, {
      token,
      query: { ca_id: rootId, purpose: 'intermediate' },
    });
    const record = listed.data.data.find((c) => c.serial === inter.data.serial);
    expect(record).toMatchObject({ name: 'OCSP Inter', ca_id: rootId, status: 'normal', source: 'csr' });
    const revoked = await call(server, api.cert.revoke, {
      token,
      body: { id: record!.id, reason: 'cACompromise' },
    });
    expect(revoked.code, revoked.msg).toBe(0);
    const answer = await ocsp('inter.pem');
    expect(answer).toMatch(/Response verify OK/);
    expect(answer).toMatch(/inter.pem: revoked/);
    expect(answer).toMatch(/Reason: cACompromise/);
    expect(await ocsp('issued.pem')).toMatch(/issued.pem: good/);
    // And on the root's CRL.
    const detail = await call(server, api.cert.caDetail, { token, query: { id: rootId } });
    expect(detail.data.crl?.entries).toBe(1);
  });

  it('deletes a CA together with the CA it signed; alone, the issuer waits until that certificate is revoked', async () => {
    const top = await newCa('Del Root');
    expect((await call(server, api.cert.caSelfSign, { token, body: { id: top.id } })).code).toBe(0);
    const below = await newCa('Del Inter');
    expect(
      (await call(server, api.cert.caSign, { token, body: { id: below.id, parent_id: top.id } })).code,
    ).toBe(0);
    // The signed CA alone goes; its certificate stays on record under its issuer, still valid.
    expect((await call(server, api.cert.caDelete, { token, body: { ids: [below.id] } })).code).toBe(0);
    const inUse = await call(server, api.cert.caDelete, { token, body: { ids: [top.id] } });
    expect(inUse.code).toBe(Code.STATE_FORBIDS);
    const record = (await call(server, api.cert.list, { token, query: { ca_id: top.id } })).data.data[0]!;
    expect((await call(server, api.cert.revoke, { token, body: { id: record.id } })).code).toBe(0);
    expect((await call(server, api.cert.caDelete, { token, body: { ids: [top.id] } })).code).toBe(0);

    // Both at once: the signed CA's certificate goes with them.
    const top2 = await newCa('Del Root 2');
    expect((await call(server, api.cert.caSelfSign, { token, body: { id: top2.id } })).code).toBe(0);
    const below2 = await newCa('Del Inter 2');
    expect(
      (await call(server, api.cert.caSign, { token, body: { id: below2.id, parent_id: top2.id } })).code,
    ).toBe(0);
    const both = await call(server, api.cert.caDelete, { token, body: { ids: [top2.id, below2.id] } });
    expect(both.code, both.msg).toBe(0);
  });
});
