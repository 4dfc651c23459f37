import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

/**
 * The subject name fields of `ca/create` and `cert/issue` with text that is not well-formed
 * Unicode: a lone UTF-16 surrogate (JSON `\ud800`) answers 4000 `cert.invalidName` naming the
 * field, in the caller's language, and nothing is created.
 */
const NAME_FIELDS = ['cn', 'o', 'ou', 'st', 'l'] as const;
const LONE = ['\uD800', 'web \uDC00', 'x\uDBFF'];

describe.each(await engines())('certificate name fields on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let caId: string;

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    const ca = await call(server, api.cert.caCreate, {
      token,
      body: { name: 'Names Root', cn: 'Names Root CA', algorithm: 'EC-P256' },
    });
    expect(ca.code, ca.msg).toBe(0);
    caId = ca.data.id;
    const signed = await call(server, api.cert.caSelfSign, { token, body: { id: caId } });
    expect(signed.code, signed.msg).toBe(0);
  });

  const counts = async () => ({
    cas: (await call(server, api.cert.caList, { token, query: {} })).data.total,
    certs: (await call(server, api.cert.list, { token, query: {} })).data.total,
    keys: (await call(server, api.key.list, { token, query: { certificate_keys: 'show' } })).data.total,
  });

  it('ca/create: a lone surrogate in cn, o, ou, st or l answers 4000 cert.invalidName naming the field', async () => {
    const before = await counts();
    for (const field of NAME_FIELDS) {
      for (const bad of LONE) {
        for (const [lang, msg] of [
          ['en', `${field}: Invalid name data format`],
          ['zh', `${field}：名称数据格式无效`],
        ] as const) {
          const res = await call(server, api.cert.caCreate, {
            token,
            lang,
            body: { name: `Bad ${field}`, cn: 'ok', [field]: bad },
          });
          expect(res.status, `${field} ${JSON.stringify(bad)}`).toBe(200);
          expect(res, `${field} ${JSON.stringify(bad)}`).toMatchObject({ code: Code.INVALID, msg });
        }
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('cert/issue: a lone surrogate in cn, o, ou, st or l answers 4000 cert.invalidName naming the field', async () => {
    const before = await counts();
    for (const field of NAME_FIELDS) {
      for (const bad of LONE) {
        const res = await call(server, api.cert.issue, {
          token,
          body: { name: `bad ${field}`, ca_id: caId, cn: 'web.example.test', [field]: bad },
        });
        expect(res.status).toBe(200);
        expect(res, `${field} ${JSON.stringify(bad)}`).toMatchObject({
          code: Code.INVALID,
          msg: `${field}: Invalid name data format`,
        });
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('names a generated key pair after its certificate (cert-<id>, cert-<id>.pub) and a CA key pair after its CA (ca-<id>)', async () => {
    const issued = await call(server, api.cert.issue, {
      token,
      body: { name: 'keyed', ca_id: caId, cn: 'keyed.example.test', key_algorithm: 'EC-P256' },
    });
    expect(issued.code, issued.msg).toBe(0);
    const { id, key_id: keyId } = issued.data;
    expect(keyId).toBeTruthy();
    const privateKey = await call(server, api.key.detail, { token, query: { id: keyId! } });
    expect(privateKey.data).toMatchObject({ name: `cert-${id}`, object_type: 'private' });
    const pair = await call(server, api.key.list, {
      token,
      query: { name_prefix: `cert-${id}`, certificate_keys: 'show' },
    });
    expect(pair.data.data.map((k) => k.name).sort()).toEqual([`cert-${id}`, `cert-${id}.pub`]);

    const ca = await call(server, api.cert.caCreate, {
      token,
      body: { name: 'Keyed CA', cn: 'Keyed CA', algorithm: 'EC-P256' },
    });
    expect(ca.code, ca.msg).toBe(0);
    const caKey = await call(server, api.key.detail, { token, query: { id: ca.data.key_id } });
    expect(caKey.data).toMatchObject({ name: `ca-${ca.data.id}`, object_type: 'private' });
    const caPair = await call(server, api.key.list, {
      token,
      query: { name_prefix: `ca-${ca.data.id}`, certificate_keys: 'show' },
    });
    expect(caPair.data.data.map((k) => k.name).sort()).toEqual([`ca-${ca.data.id}`, `ca-${ca.data.id}.pub`]);
  });

  it('still takes well-formed text outside the BMP (a surrogate pair) in a name field', async () => {
    const res = await call(server, api.cert.issue, {
      token,
      body: { name: 'astral', ca_id: caId, cn: 'web.example.test', o: 'Acme \u{1F512}' },
    });
    expect(res.code, res.msg).toBe(0);
    expect(res.data.subject).toContain('O=Acme \u{1F512}');
  });
});
