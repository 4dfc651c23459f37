import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, Code, COMMUNITY_LIMITS, Usage, type LicensePayload } from '@ksp/contracts';
import {
  ADMIN,
  call,
  callUnchecked,
  domainWithAdmin,
  engines,
  login,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { mintLicense, testLicenseKeys } from '../../test/license.js';
import { lockCodeOf } from './license.verify.js';

const DAY = 86_400_000;

describe('lock codes', () => {
  it('are 20 hex digits in groups of four, stable for one install id', () => {
    expect(lockCodeOf('a')).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){4}$/);
    expect(lockCodeOf('a')).toBe(lockCodeOf('a'));
    expect(lockCodeOf('a')).not.toBe(lockCodeOf('b'));
  });
});

describe.each(await engines())('licences on %s', (engine) => {
  const keys = testLicenseKeys();
  const forger = testLicenseKeys();
  let server: TestServer;
  let token: string;
  let lockCode: string;

  signedInServer(engine, (started) => ({ server, token } = started), {
    env: { KSP_LICENSE_TEST_PUBLIC_KEY: keys.publicKeyBase64 },
  });

  const payload = (over: Partial<LicensePayload> = {}): LicensePayload => {
    const now = server.clock.now.getTime();
    return {
      id: `LIC-${Math.random().toString(36).slice(2, 10)}`,
      customer: 'Example Corp',
      lock_code: lockCode,
      bind_type: 'instance',
      features: { keys: 4, kmip_clients: 10 },
      not_before: new Date(now - DAY).toISOString(),
      not_after: new Date(now + 30 * DAY).toISOString(),
      issued_at: new Date(now - DAY).toISOString(),
      ...over,
    };
  };
  const activate = (license: string, lang = 'en') =>
    call(server, api.license.activate, { token, lang, body: { license } });
  const newKey = (name: string) =>
    call(server, api.key.create, {
      token,
      body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
  const audits = (action: string) =>
    server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details', 'target'])
      .where('action', '=', action)
      .execute();

  it('shows a stable lock code and the community limits without a licence', async () => {
    const lock = await call(server, api.license.lockdata, { token });
    expect(lock.code, lock.msg).toBe(0);
    lockCode = lock.data.lock_code;
    expect(lockCode).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){4}$/);
    expect((await call(server, api.license.lockdata, { token })).data.lock_code).toBe(lockCode);
    const list = await call(server, api.license.list, { token });
    expect(list.data.state).toBe('community');
    expect(list.data.licenses).toEqual([]);
    const keysRow = list.data.features.find((f) => f.feature === 'keys');
    expect(keysRow).toMatchObject({ total: COMMUNITY_LIMITS.keys, used: 0, source: 'community' });
  });

  it('refuses forged, altered, malformed, expired and wrong-lock-code licences, naming the field, and audits each', async () => {
    const forged = await activate(mintLicense(payload(), forger.privateKey));
    expect(forged.code).toBe(Code.INVALID);
    expect(forged.msg).toMatch(/^license: the signature does not verify/);
    const good = mintLicense(payload(), keys.privateKey);
    const [prefix, body, sig] = good.split('.') as [string, string, string];
    const altered = Buffer.from(body, 'base64url').toString('utf8').replace('"keys":4', '"keys":4000');
    const tampered = await activate(`${prefix}.${Buffer.from(altered).toString('base64url')}.${sig}`);
    expect(tampered.msg).toMatch(/signature does not verify/);
    const malformed = await activate('hello world', 'zh');
    expect(malformed.code).toBe(Code.INVALID);
    expect(malformed.msg).toMatch(/^license：不是 KSP 许可证/);
    const badPayload = await activate(mintLicense({ id: 'x' }, keys.privateKey));
    expect(badPayload.msg).toMatch(/^license: not a KSP licence \(customer/);
    const now = server.clock.now.getTime();
    const expired = await activate(
      mintLicense(
        payload({
          not_before: new Date(now - 60 * DAY).toISOString(),
          not_after: new Date(now - DAY).toISOString(),
        }),
        keys.privateKey,
      ),
    );
    expect(expired.code).toBe(Code.INVALID);
    expect(expired.msg).toMatch(/^license: it expired on /);
    const elsewhere = await activate(
      mintLicense(payload({ lock_code: 'AAAA-BBBB-CCCC-DDDD-EEEE' }), keys.privateKey),
    );
    expect(elsewhere.msg).toBe(
      `license: it is bound to lock code AAAA-BBBB-CCCC-DDDD-EEEE, this installation is ${lockCode}`,
    );
    const refused = await audits('license.activate');
    expect(refused).toHaveLength(6);
    expect(refused.every((a) => a.result === 'failure')).toBe(true);
    // Small details: the reason and the licence id, never the licence text.
    expect(refused.some((a) => String(a.details).includes('license.wrongLockCode'))).toBe(true);
    expect(refused.every((a) => !String(a.details).includes(sig))).toBe(true);
    expect((await call(server, api.license.list, { token })).data.licenses).toEqual([]);
  });

  it('activates a good licence, sums its quantities and counts used keys from the key tally', async () => {
    const text = mintLicense(payload({ id: 'LIC-GOOD' }), keys.privateKey);
    // Pasted text may be wrapped.
    const res = await activate(`${text.slice(0, 40)}\n${text.slice(40)}\n`);
    expect(res.code, res.msg).toBe(0);
    expect(res.data).toMatchObject({ id: 'LIC-GOOD', status: 'active', text, activated_by: 'admin' });
    expect((await activate(text)).code).toBe(Code.CONFLICT);
    expect((await newKey('lic-1')).code).toBe(0);
    const list = await call(server, api.license.list, { token });
    expect(list.data.state).toBe('licensed');
    expect(list.data.features.find((f) => f.feature === 'keys')).toMatchObject({
      total: 4,
      used: 1,
      source: 'license',
    });
    expect(list.data.features.find((f) => f.feature === 'kmip_clients')).toMatchObject({
      total: 10,
      used: 0,
    });
    expect(list.data.features.find((f) => f.feature === 'sms_servers')).toMatchObject({
      total: COMMUNITY_LIMITS.sms_servers,
      source: 'community',
    });
    const ok = (await audits('license.activate')).filter((a) => a.result === 'success');
    expect(ok).toEqual([expect.objectContaining({ target: 'LIC-GOOD' })]);
  });

  it('refuses a key over the quota with 4220 naming the feature and the limit (a key pair counts two)', async () => {
    expect((await newKey('lic-2')).code).toBe(0);
    expect((await newKey('lic-3')).code).toBe(0);
    const pair = await call(server, api.key.create, {
      token,
      body: { name: 'lic-pair', algorithm: 'EC-P256', usage_mask: Usage.Sign | Usage.Verify },
    });
    expect(pair.code).toBe(Code.STATE_FORBIDS);
    expect((await newKey('lic-4')).code).toBe(0);
    const over = await newKey('lic-5');
    expect(over.code).toBe(Code.STATE_FORBIDS);
    expect(over.msg).toBe('Licence limit reached: keys is limited to 4');
    const zh = await call(server, api.key.create, {
      token,
      lang: 'zh',
      body: { name: 'lic-5', algorithm: 'AES-256', usage_mask: Usage.Encrypt },
    });
    expect(zh.msg).toBe('已达许可上限：keys 最多 4');
    // Imports count too (a public key alone is one object).
    const spki = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'der',
    });
    const imported = await callUnchecked(server, api.key.import, {
      token,
      body: {
        name: 'lic-import',
        algorithm: 'EC-P256',
        format: 'spki',
        content: spki.toString('base64'),
        usage_mask: Usage.Verify,
      },
    });
    expect(imported.code).toBe(Code.STATE_FORBIDS);
    expect(imported.msg).toBe('Licence limit reached: keys is limited to 4');
  });

  it('after expiry refuses new keys but keeps existing keys working', async () => {
    const [first] = (await call(server, api.key.list, { token, query: { page: 1, page_size: 10 } })).data
      .data;
    server.clock.advance(31 * 86_400);
    token = await login(server, ADMIN.username, ADMIN.password);
    const list = await call(server, api.license.list, { token });
    expect(list.data.state).toBe('expired');
    expect(list.data.licenses[0]?.status).toBe('expired');
    const refused = await newKey('after-expiry');
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toBe('The licence has expired: no new keys may be created (limit 4)');
    const enc = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: first!.id, plaintext: Buffer.from('still works').toString('base64') },
    });
    expect(enc.code, enc.msg).toBe(0);
    server.clock.advance(-31 * 86_400);
    token = await login(server, ADMIN.username, ADMIN.password);
  });

  it('refuses a domain administrator, even with the Administrator role', async () => {
    const { token: other } = await domainWithAdmin(server, token, {
      domain: 'lic-branch',
      username: 'lic-branch-admin',
      password: 'Branch-Pass-1',
    });
    for (const res of [
      await call(server, api.license.lockdata, { token: other }),
      await call(server, api.license.list, { token: other }),
      await call(server, api.license.activate, { token: other, body: { license: 'KSP1.a.b' } }),
    ])
      expect(res.code).toBe(Code.FORBIDDEN);
  });

  it('deletes a licence (audited), and the community limits apply again', async () => {
    const list = await call(server, api.license.list, { token });
    const rowId = list.data.licenses[0]!.row_id;
    const res = await call(server, api.license.delete, { token, body: { row_id: rowId } });
    expect(res.code, res.msg).toBe(0);
    expect((await call(server, api.license.delete, { token, body: { row_id: rowId } })).code).toBe(
      Code.NOT_FOUND,
    );
    const after = await call(server, api.license.list, { token });
    expect(after.data.state).toBe('community');
    expect(after.data.features.find((f) => f.feature === 'keys')).toMatchObject({
      total: COMMUNITY_LIMITS.keys,
      used: 4,
    });
    expect((await newKey('lic-community')).code).toBe(0);
    expect(await audits('license.delete')).toEqual([
      expect.objectContaining({ target: 'LIC-GOOD', result: 'success' }),
    ]);
  });

  it('accepts a trial licence for any lock code', async () => {
    const res = await activate(
      mintLicense(payload({ id: 'TRIAL-1', lock_code: 'any', features: { keys: 50 } }), keys.privateKey),
    );
    expect(res.code, res.msg).toBe(0);
    expect(res.data.lock_code).toBe('any');
  });
});
