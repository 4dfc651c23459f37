import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage } from '@ksp/contracts';
import { downloadKey, fetchArchive, finished, uploadArchive } from '../../test/backup.js';
import { SOFTHSM_MODULE, createEmptyTestToken, type TestToken } from '../../test/softhsm.js';
import { call, engines, initialize, login, ADMIN, startServer, type TestServer } from '../../test/harness.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe.each(await engines())('HSM-bound backups on %s', (engine) => {
  let a: TestServer;
  let b: TestServer | undefined;
  let token: string;
  let hsm: TestToken;
  let ciphertext: string;
  const PIN = '135790';

  beforeAll(async () => {
    hsm = createEmptyTestToken(PIN);
    // The PKCS#11 library reads its configuration at each C_Initialize: this suite's token.
    process.env.SOFTHSM2_CONF = hsm.conf;
    a = await startServer(engine);
    ({ token } = await initialize(a));
    const key = await call(a, api.key.create, {
      token,
      body: { name: 'bound-key', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    expect(key.code, key.msg).toBe(0);
    const enc = await call(a, api.crypto.encrypt, {
      token,
      body: { key_id: key.data.id, plaintext: b64('only with the HSM') },
    });
    ciphertext = enc.data.ciphertext;
    const backupKey = await call(a, api.backupKey.create, {
      token,
      body: { name: 'system', scope: 'system', is_default: true },
    });
    expect(backupKey.code, backupKey.msg).toBe(0);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    hsm?.remove();
  });

  const target = { library: SOFTHSM_MODULE, token_label: '', pin: PIN };

  it('binds a system backup to the HSM key: the backup key alone does not restore it, the same HSM does', async () => {
    // Refused with the field and the rule: no HSM yet, or not a system backup.
    const unbound = await call(a, api.backup.create, { token, body: { scope: 'system', tied_to_hsm: true } });
    expect(unbound.code).toBe(Code.STATE_FORBIDS);
    expect(unbound.msg).toBe('tied_to_hsm: this server is not bound to an HSM (settings › HSM)');
    const zh = await call(a, api.backup.create, {
      token,
      lang: 'zh',
      body: { scope: 'domain', tied_to_hsm: true },
    });
    expect(zh.code).toBe(Code.INVALID);
    expect(zh.msg).toBe('tied_to_hsm：只有系统备份可以绑定到 HSM');

    const bound = await call(a, api.hsm.bind, { token, body: { ...target, token_label: hsm.label } });
    expect(bound.code, bound.msg).toBe(0);
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'system', description: 'bound', tied_to_hsm: true },
    });
    expect(started.code, started.msg).toBe(0);
    const done = await finished(a, token, started.data.id);
    expect(done).toMatchObject({ status: 'completed', scope: 'system', tied_to_hsm: true });
    const archive = await fetchArchive(a, token, done.id);
    const keyFile = await downloadKey(a, token, done.backup_key_id, 'key-file-pass-1');

    // A fresh server with the backup key file but no HSM: refused, naming the HSM, nothing changed.
    b = await startServer(engine);
    let tokenB = (await initialize(b)).token;
    const up = await uploadArchive(b, tokenB, archive);
    expect(up.code, up.msg).toBe(0);
    const uploaded = await call(b, api.backup.detail, { token: tokenB, query: { id: up.data.id } });
    expect(uploaded.data.tied_to_hsm).toBe(true);
    const key = await call(b, api.backupKey.upload, {
      token: tokenB,
      body: { file: keyFile, password: 'key-file-pass-1' },
    });
    expect(key.code, key.msg).toBe(0);
    const refused = await call(b, api.backup.restore, { token: tokenB, body: { id: up.data.id } });
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toMatch(
      /^This backup is bound to the HSM \S+: restore it on a server bound to the same HSM key$/,
    );
    expect((await call(b, api.key.list, { token: tokenB })).data.total).toBe(0);

    // Bound to the same HSM key, the same server restores it, and the old ciphertext decrypts.
    const bindB = await call(b, api.hsm.bind, { token: tokenB, body: { ...target, token_label: hsm.label } });
    expect(bindB.code, bindB.msg).toBe(0);
    const restored = await call(b, api.backup.restore, { token: tokenB, body: { id: up.data.id } });
    expect(restored.code, restored.msg).toBe(0);
    tokenB = await login(b, ADMIN.username, ADMIN.password);
    const dec = await call(b, api.crypto.decrypt, { token: tokenB, body: { ciphertext } });
    expect(dec.code, dec.msg).toBe(0);
    expect(Buffer.from(dec.data.plaintext, 'base64').toString('utf8')).toBe('only with the HSM');
  });
});
