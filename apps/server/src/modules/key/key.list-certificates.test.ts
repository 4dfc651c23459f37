import { beforeAll, describe, expect, it } from 'vitest';
import { api, type QueryOf } from '@ksp/contracts';
import { call, domainWithAdmin, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

/**
 * Keys a certificate or CA holds (both halves of the pair) belong to it: the key list leaves
 * them out by default, lists them when asked with the certificate or CA they belong to, and
 * keeps its total right either way.
 */
describe.each(await engines())('certificate keys in the key list on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let other: { domainId: string; token: string };
  const ca = { id: '', keyId: '' };
  const cert = { id: '', keyId: '' };

  const list = async (t: string, query: Partial<QueryOf<typeof api.key.list>> = {}) => {
    const r = await call(server, api.key.list, { token: t, query: { page: 1, page_size: 100, ...query } });
    expect(r.code, r.msg).toBe(0);
    return r.data;
  };
  const names = (page: { data: { name: string }[] }) => page.data.map((r) => r.name).sort();

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    for (const name of ['own-aes', 'own-pair']) {
      const r = await call(server, api.key.create, {
        token,
        body: {
          name,
          algorithm: name === 'own-aes' ? 'AES-256' : 'EC-P256',
          usage_mask: name === 'own-aes' ? 12 : 3,
        },
      });
      expect(r.code, r.msg).toBe(0);
    }
    const created = await call(server, api.cert.caCreate, {
      token,
      body: { name: 'Key Root', cn: 'Key Root CA', algorithm: 'EC-P256' },
    });
    expect(created.code, created.msg).toBe(0);
    ca.id = created.data.id;
    expect((await call(server, api.cert.caSelfSign, { token, body: { id: ca.id } })).code).toBe(0);
    const issued = await call(server, api.cert.issue, {
      token,
      body: { name: 'web', ca_id: ca.id, cn: 'web.example.test' },
    });
    expect(issued.code, issued.msg).toBe(0);
    cert.id = issued.data.id;
    const rows = await server.database.db
      .selectFrom('cert_certificate')
      .select('key_id')
      .where('id', '=', cert.id)
      .executeTakeFirstOrThrow();
    cert.keyId = rows.key_id!;
    const caRow = await server.database.db
      .selectFrom('cert_ca')
      .select('key_id')
      .where('id', '=', ca.id)
      .executeTakeFirstOrThrow();
    ca.keyId = caRow.key_id;
    other = await domainWithAdmin(server, token, {
      domain: 'other',
      username: 'other-admin',
      password: 'Other-Passw0rd!',
    });
  });

  it('leaves certificate and CA keys (both halves) out by default, with a matching total', async () => {
    const shown = await list(token, { certificate_keys: 'show' });
    const held = shown.data.filter((r) => r.belongs_to);
    // The CA's pair and the certificate's pair.
    expect(held).toHaveLength(4);
    expect(held.map((r) => r.id)).toEqual(expect.arrayContaining([ca.keyId, cert.keyId]));
    const byDefault = await list(token);
    expect(names(byDefault)).toEqual(['own-aes', 'own-pair', 'own-pair.pub']);
    expect(byDefault.total).toBe(3);
    expect(byDefault.data.every((r) => r.belongs_to === null)).toBe(true);
    expect((await list(token, { certificate_keys: 'hide' })).total).toBe(3);
    expect(shown.total).toBe(7);
    // Filters the tally knows and the bounded count agree.
    expect((await list(token, { algorithm: 'EC-P256' })).total).toBe(2);
    expect((await list(token, { algorithm: 'EC-P256', certificate_keys: 'show' })).total).toBe(6);
    expect((await list(token, { name: 'own' })).total).toBe(3);
    expect((await list(token, { page_size: 2, page: 2 })).data.map((r) => r.name)).toHaveLength(1);
  });

  it('lists them when asked, each naming the certificate or CA it belongs to', async () => {
    const only = await list(token, { certificate_keys: 'only' });
    expect(only.total).toBe(4);
    expect(only.data).toHaveLength(4);
    const certKeys = only.data.filter((r) => r.belongs_to?.kind === 'certificate');
    const caKeys = only.data.filter((r) => r.belongs_to?.kind === 'ca');
    expect(certKeys).toHaveLength(2);
    expect(caKeys).toHaveLength(2);
    for (const r of certKeys) expect(r.belongs_to).toEqual({ kind: 'certificate', id: cert.id, name: 'web' });
    for (const r of caKeys) expect(r.belongs_to).toEqual({ kind: 'ca', id: ca.id, name: 'Key Root' });
    expect(certKeys.map((r) => r.object_type).sort()).toEqual(['private', 'public']);
    const filtered = await call(server, api.key.list, {
      token,
      query: { page: 1, page_size: 10, certificate_keys: 'every' as 'show' },
    });
    expect(filtered.code).not.toBe(0);
    expect(filtered.msg).toContain('certificate_keys');
  });

  it("never shows another domain's certificates or their keys", async () => {
    const theirs = await list(other.token, { certificate_keys: 'show' });
    expect(theirs.total).toBe(0);
    expect(theirs.data).toEqual([]);
    const created = await call(server, api.key.create, {
      token: other.token,
      body: { name: 'their-key', algorithm: 'AES-256', usage_mask: 12 },
    });
    expect(created.code, created.msg).toBe(0);
    const after = await list(other.token, { certificate_keys: 'show' });
    expect(after.data.map((r) => [r.name, r.belongs_to])).toEqual([['their-key', null]]);
    expect((await list(other.token, { certificate_keys: 'only' })).total).toBe(0);
  });
});
