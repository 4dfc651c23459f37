import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as graphene from 'graphene-pk11';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage, HSM_DEFAULT_KEY_LABEL } from '@ksp/contracts';
import {
  call,
  callUnchecked,
  engines,
  initialize,
  startServer,
  type TestServer,
} from '../../test/harness.js';
import { auditRecords } from '../../test/fixtures.js';
import { selfSignedEc } from '../../test/openssl.js';
import { runCli } from '../../test/cli.js';
import { SOFTHSM_MODULE, createEmptyTestToken, type TestToken } from '../../test/softhsm.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** Changes the user PIN on the token (as an HSM administrator would), outside the server. */
function changePin(token: TestToken, from: string, to: string) {
  const mod = graphene.Module.load(SOFTHSM_MODULE, 'test');
  mod.initialize();
  try {
    const slots = mod.getSlots(true);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots.items(i);
      if (slot.getToken().label.trim() !== token.label) continue;
      const session = slot.open(graphene.SessionFlag.SERIAL_SESSION | graphene.SessionFlag.RW_SESSION);
      session.login(from, graphene.UserType.USER);
      session.setPin(from, to);
      session.logout();
      session.close();
    }
  } finally {
    mod.finalize();
    mod.close();
  }
}

/** A self-signed certificate and its key, made by OpenSSL. */
function certificatePair(cn: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-hsm-cert-'));
  selfSignedEc(dir, { key: 'k.pem', cert: 'c.pem', cn, days: 5 });
  const pair = {
    cert: readFileSync(join(dir, 'c.pem'), 'utf8'),
    key: readFileSync(join(dir, 'k.pem'), 'utf8'),
  };
  rmSync(dir, { recursive: true, force: true });
  return pair;
}

describe.each(await engines())('the HSM root of trust on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let hsm: TestToken;
  let keyId: string;
  let ciphertext: string;
  const PIN = '246810';
  let scratch: string;
  const pkcs11Dirs = () =>
    [
      dirname(SOFTHSM_MODULE),
      dirname(realpathSync(SOFTHSM_MODULE)),
      '/opt/vendor',
      join(scratch, 'allowed'),
    ].join(':');
  const logLines: string[] = [];

  beforeAll(async () => {
    hsm = createEmptyTestToken(PIN);
    // The PKCS#11 library reads its configuration at each C_Initialize: this suite's token
    // (each test file runs in a process of its own: vitest's forks pool).
    process.env.SOFTHSM2_CONF = hsm.conf;
    // The operator's list of library directories: SoftHSM2's (the Debian link and where it
    // points), a vendor directory without the library, and a scratch directory with a link.
    scratch = mkdtempSync(join(tmpdir(), 'ksp-p11-dirs-'));
    mkdirSync(join(scratch, 'elsewhere'));
    writeFileSync(join(scratch, 'elsewhere', 'evil.so'), 'not a library');
    mkdirSync(join(scratch, 'allowed'));
    symlinkSync(join(scratch, 'elsewhere', 'evil.so'), join(scratch, 'allowed', 'evil.so'));
    server = await startServer(engine, { KSP_PKCS11_DIRS: pkcs11Dirs() }, undefined, undefined, {
      logStream: { write: (line: string) => void logLines.push(line) },
    });
    ({ token } = await initialize(server));
    const key = await call(server, api.key.create, {
      token,
      body: { name: 'kept-through-hsm', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    expect(key.code, key.msg).toBe(0);
    keyId = key.data.id;
    const enc = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: keyId, plaintext: b64('the crown jewels') },
    });
    expect(enc.code, enc.msg).toBe(0);
    ciphertext = enc.data.ciphertext;
  });
  afterAll(async () => {
    await server?.close();
    hsm?.remove();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const target = (over: Record<string, unknown> = {}) => ({
    library: SOFTHSM_MODULE,
    token_label: hsm.label,
    pin: PIN,
    ...over,
  });
  const bind = (changes: Record<string, unknown>, lang?: string) =>
    call(server, api.hsm.bind, { token, body: target(changes), ...(lang ? { lang } : {}) });
  const sealFile = () => join(server.dataDir, 'seal.key');
  const decryptsOldCiphertext = async () => {
    const dec = await call(server, api.crypto.decrypt, { token, body: { ciphertext } });
    expect(dec.code, dec.msg).toBe(0);
    expect(Buffer.from(dec.data.plaintext, 'base64').toString('utf8')).toBe('the crown jewels');
  };
  const audits = (action: string) => auditRecords(server, action);
  const everythingStored = async () => {
    const rows = await server.database.db.selectFrom('hsm').selectAll().execute();
    const trail = await server.database.db.selectFrom('audit_log').select('details').execute();
    return JSON.stringify(rows) + JSON.stringify(trail);
  };

  it('starts on the seal file and tests a round trip on a token before binding', async () => {
    const status = await call(server, api.hsm.status, { token });
    expect(status.data).toMatchObject({ root_provider: 'seal-file', bound: false, configured: false });
    expect(existsSync(sealFile())).toBe(true);
    const tested = await call(server, api.hsm.test, { token, body: target() });
    expect(tested.code, tested.msg).toBe(0);
    expect(tested.data).toMatchObject({
      ok: true,
      token_label: hsm.label,
      key_label: HSM_DEFAULT_KEY_LABEL,
      key_sensitive: true,
      key_extractable: false,
      key_created: true,
    });
    expect((await audits('hsm.test')).map((r) => r.result)).toEqual(['success']);
  });

  it('refuses hostile settings with an error naming the field, audited, changing nothing', async () => {
    const badLib = await bind({ library: '/opt/vendor/libnothing.so' });
    expect(badLib.code).toBe(Code.INVALID);
    expect(badLib.msg).toBe('library: the PKCS#11 library /opt/vendor/libnothing.so cannot be loaded');
    const badLibZh = await bind({ library: '/opt/vendor/libnothing.so' }, 'zh-CN');
    expect(badLibZh.msg).toBe('library：无法加载 PKCS#11 库 /opt/vendor/libnothing.so');
    const badPin = await bind({ pin: '999999' });
    expect(badPin.code).toBe(Code.INVALID);
    expect(badPin.msg).toMatch(/^pin: the HSM token .* refused the PIN \(CKR_PIN_INCORRECT\)$/);
    const noToken = await bind({ token_label: 'no-such-token' });
    expect(noToken.code).toBe(Code.STATE_FORBIDS);
    expect(noToken.msg).toBe('No HSM token no-such-token is reachable through the PKCS#11 library');
    const noPin = await callUnchecked(server, api.hsm.bind, {
      token,
      body: { library: SOFTHSM_MODULE, token_label: hsm.label },
    });
    expect(noPin.code).toBe(Code.INVALID);
    expect(noPin.msg).toMatch(/pin/);
    const noLibrary = await callUnchecked(server, api.hsm.bind, { token, body: { pin: PIN } });
    expect(noLibrary.code).toBe(Code.INVALID);
    expect(noLibrary.msg).toMatch(/library/);
    // Nothing bound, the seal file still the root of trust; the refusals are in the trail.
    expect((await call(server, api.hsm.status, { token })).data).toMatchObject({
      bound: false,
      configured: false,
    });
    expect(existsSync(sealFile())).toBe(true);
    // A library outside the directories the operator allowed is never loaded, however named:
    // directly, through `..`, or through a link inside an allowed directory.
    const dirs = pkcs11Dirs();
    for (const library of [
      '/nowhere/libnothing.so',
      `${dirname(SOFTHSM_MODULE)}/../../..${join(scratch, 'elsewhere', 'evil.so')}`,
      join(scratch, 'allowed', 'evil.so'),
    ]) {
      const refused = await bind({ library });
      expect(refused.code).toBe(Code.INVALID);
      expect(refused.msg).toBe(
        `library: ${library} is not in a directory this server allows PKCS#11 libraries from (${dirs}); the operator names them with KSP_PKCS11_DIRS`,
      );
    }
    const refusedZh = await call(server, api.hsm.test, {
      token,
      lang: 'zh-CN',
      body: target({ library: '/nowhere/libnothing.so' }),
    });
    expect(refusedZh.code).toBe(Code.INVALID);
    expect(refusedZh.msg).toBe(
      `library：/nowhere/libnothing.so 不在本服务器允许加载 PKCS#11 库的目录中（${dirs}）；由运维人员通过 KSP_PKCS11_DIRS 指定`,
    );
    expect((await audits('hsm.test')).at(-1)).toMatchObject({ result: 'failure' });
    expect(JSON.parse((await audits('hsm.test')).at(-1)!.details)).toMatchObject({
      reason: 'hsm.libraryNotAllowed',
      library: '/nowhere/libnothing.so',
    });
    const trail = await audits('hsm.bind');
    expect(trail.map((r) => r.result)).toEqual(Array<string>(7).fill('failure'));
    for (const row of trail.slice(4))
      expect(JSON.parse(row.details)).toMatchObject({ reason: 'hsm.libraryNotAllowed' });
    expect(JSON.parse(trail[0]!.details)).toMatchObject({ reason: 'hsm.library' });
    expect(JSON.parse(trail[2]!.details)).toMatchObject({ reason: 'hsm.pinRefused' });
    expect(await everythingStored()).not.toContain('999999');
    // The certificate fields need a configured HSM first.
    const early = await call(server, api.hsm.certificates, {
      token,
      body: { hsm_certificate: certificatePair('x').cert },
    });
    expect(early.code).toBe(Code.STATE_FORBIDS);
  });

  it('binds: the token key wraps the root key, the seal file is gone, the PIN is stored sealed', async () => {
    const bound = await call(server, api.hsm.bind, { token, body: target() });
    expect(bound.code, bound.msg).toBe(0);
    expect(bound.data).toMatchObject({
      root_provider: 'pkcs11',
      bound: true,
      configured: true,
      seal_file: null,
      library: SOFTHSM_MODULE,
      token_label: hsm.label,
      key_label: HSM_DEFAULT_KEY_LABEL,
    });
    expect(bound.data.slot_serial).toMatch(/^[0-9a-f]+$/);
    expect(existsSync(sealFile())).toBe(false);
    expect(await everythingStored()).not.toContain(PIN);
    const state = await server.database.db.selectFrom('system_state').selectAll().executeTakeFirstOrThrow();
    expect(state).toMatchObject({ root_provider: 'pkcs11', seal_fingerprint: null });
    expect(state.root_key_wrapped).toMatch(/^p11gcm1:/);
    const dashboard = await call(server, api.dashboard.summary, { token });
    expect(dashboard.data.hsm).toEqual({ root_provider: 'pkcs11', token_label: hsm.label });
    expect((await audits('hsm.bind')).at(-1)).toMatchObject({
      result: 'success',
      target: bound.data.slot_serial,
    });
    await decryptsOldCiphertext();
  });

  it('unseals through the HSM after a restart, and the keys still decrypt', async () => {
    server = await server.restart();
    expect((await call(server, api.system.status)).data.sealed).toBe(false);
    await decryptsOldCiphertext();
    const noPin = await call(server, api.hsm.test, { token, body: { library: SOFTHSM_MODULE } });
    expect(noPin).toMatchObject({ code: Code.INVALID, msg: 'pin: is required' });
    const tested = await call(server, api.hsm.test, { token, body: {} });
    expect(tested.code, tested.msg).toBe(0);
    expect(tested.data).toMatchObject({ key_created: false, key_extractable: false, key_sensitive: true });
  });

  it('stays sealed with a clear reason while the token refuses the PIN, and unseals once it is back, without a restart', async () => {
    changePin(hsm, PIN, '135790');
    server = await server.restart();
    const sealed = await call(server, api.hsm.status, { token });
    expect(sealed.code).toBe(Code.NOT_INITIALIZED);
    expect(sealed.msg).toMatch(
      /^The system is sealed: the HSM token .* refused the stored PIN \(CKR_PIN_INCORRECT\)/,
    );
    // The operator's log says why, never with the PIN.
    expect(logLines.some((l) => l.includes('hsm.pinRefused'))).toBe(true);
    const zh = await call(server, api.hsm.status, { token, lang: 'zh-CN' });
    expect(zh.msg).toMatch(/^系统处于封存状态：HSM 令牌 .* 拒绝了保存的 PIN/);
    expect((await call(server, api.system.status)).data.sealed).toBe(true);
    changePin(hsm, '135790', PIN);
    // Not tried again at once (a real HSM locks its user after a few wrong PINs)...
    server.clock.advance(31);
    expect((await call(server, api.hsm.status, { token })).code).toBe(Code.NOT_INITIALIZED);
    // ...but after 5 minutes, on the next call.
    server.clock.advance(300);
    const back = await call(server, api.hsm.status, { token });
    expect(back.code, back.msg).toBe(0);
    await decryptsOldCiphertext();
  });

  it('takes a new PIN from `ksp hsm-pin` while sealed: a refused one changes nothing, the right one unseals at once', async () => {
    changePin(hsm, PIN, '97531');
    server = await server.restart();
    expect((await call(server, api.hsm.status, { token })).code).toBe(Code.NOT_INITIALIZED);
    const storedBefore = (await server.database.db
      .selectFrom('hsm')
      .select('pin_sealed')
      .executeTakeFirst())!;
    const env = {
      KSP_DATA_DIR: server.dataDir,
      KSP_DATABASE_URL: server.databaseUrl ?? '',
      KSP_PKCS11_DIRS: pkcs11Dirs(),
      NEW_PIN: '11111',
    };
    // The token refuses it: nothing is stored, the answer says why.
    const refused = await runCli(['hsm-pin', '--pin-env', 'NEW_PIN'], env);
    expect(refused.status, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(
      /The token refused: pin: the HSM token .* refused the PIN.*nothing was changed/,
    );
    expect(await server.database.db.selectFrom('hsm').select('pin_sealed').executeTakeFirst()).toEqual(
      storedBefore,
    );
    // The right one: stored sealed (never in clear), and the server unseals on its next call,
    // long before its 5-minute wait after a refused PIN.
    const done = await runCli(['hsm-pin', '--pin-env', 'NEW_PIN'], { ...env, NEW_PIN: '97531' });
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('it unwraps the root key');
    const stored = (await server.database.db.selectFrom('hsm').select('pin_sealed').executeTakeFirst())!;
    expect(stored.pin_sealed).not.toBe(storedBefore.pin_sealed);
    expect(await everythingStored()).not.toContain('97531');
    const back = await call(server, api.hsm.status, { token });
    expect(back.code, back.msg).toBe(0);
    await decryptsOldCiphertext();
    const trail = await server.database.db
      .selectFrom('audit_log')
      .select(['result', 'source', 'target'])
      .where('action', '=', 'hsm.pin')
      .execute();
    expect(trail).toEqual([{ result: 'success', source: 'cli', target: hsm.label }]);
    // A PIN key file that is not the one the PIN was sealed under (another node's, stale) is refused.
    const pinFile = join(server.dataDir, 'hsm-pin.key');
    const kept = readFileSync(pinFile);
    writeFileSync(pinFile, `ksp-seal-v1:${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const stale = await runCli(['hsm-pin', '--pin-env', 'NEW_PIN'], { ...env, NEW_PIN: '97531' });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('does not open the stored PIN');
    writeFileSync(pinFile, kept, { mode: 0o600 });
    // Back to the suite's PIN for the tests that follow.
    changePin(hsm, '97531', PIN);
    const reset = await runCli(['hsm-pin', '--pin-env', 'NEW_PIN'], { ...env, NEW_PIN: PIN });
    expect(reset.status, reset.stderr).toBe(0);
    // Four CLI processes, each loading the server's code through tsx: up to 10 s each on a
    // loaded two-core machine.
  }, 90_000);

  it('stays sealed while the token is gone, and unseals when it is restored, without a restart', async () => {
    const tokens = join(dirname(hsm.conf), 'tokens');
    const away = `${tokens}.away`;
    renameSync(tokens, away);
    try {
      server = await server.restart();
      const sealed = await call(server, api.hsm.status, { token });
      expect(sealed.code).toBe(Code.NOT_INITIALIZED);
      expect(sealed.msg).toMatch(/^The system is sealed: the HSM token [0-9a-f]+ is not reachable/);
      server.clock.advance(31);
      expect((await call(server, api.hsm.status, { token })).code).toBe(Code.NOT_INITIALIZED);
    } finally {
      renameSync(away, tokens);
    }
    server.clock.advance(31);
    const back = await call(server, api.hsm.status, { token });
    expect(back.code, back.msg).toBe(0);
    await decryptsOldCiphertext();
  });

  it('stays sealed while the library is missing, in English and Chinese, and unseals once it is back', async () => {
    const setLibrary = (library: string) =>
      server.database.db.updateTable('hsm').set({ library }).where('id', '=', 'hsm').execute();
    await setLibrary('/opt/vendor/missing-pkcs11.so');
    server = await server.restart();
    const sealed = await call(server, api.hsm.status, { token });
    expect(sealed.code).toBe(Code.NOT_INITIALIZED);
    expect(sealed.msg).toBe(
      'The system is sealed: the HSM library /opt/vendor/missing-pkcs11.so cannot be loaded. Install it or correct the path; the keys are intact',
    );
    const zh = await call(server, api.hsm.status, { token, lang: 'zh-CN' });
    expect(zh.msg).toBe(
      '系统处于封存状态：无法加载 HSM 库 /opt/vendor/missing-pkcs11.so。请安装或更正路径；密钥完好无损',
    );
    // A stored path outside the allowed directories (a changed database, or a narrowed
    // KSP_PKCS11_DIRS) is not loaded at start either.
    await setLibrary('/tmp/planted/libpkcs11.so');
    server.clock.advance(31);
    const planted = await call(server, api.hsm.status, { token });
    expect(planted.code).toBe(Code.NOT_INITIALIZED);
    expect(planted.msg).toBe(
      `The system is sealed: the stored HSM library /tmp/planted/libpkcs11.so is not in a directory this server allows PKCS#11 libraries from (${pkcs11Dirs()}). Add its directory to KSP_PKCS11_DIRS, or correct the path; the keys are intact`,
    );
    // The library installed again (here: the path set back) is picked up by a later call.
    await setLibrary(SOFTHSM_MODULE);
    server.clock.advance(31);
    const back = await call(server, api.hsm.status, { token });
    expect(back.code, back.msg).toBe(0);
    await decryptsOldCiphertext();
  });

  it('stores the certificate fields (PEM checked) and never answers the client private key', async () => {
    const client = certificatePair('ksp-client');
    const other = certificatePair('other');
    const server_ = certificatePair('ksp-server');
    const badPem = await call(server, api.hsm.certificates, {
      token,
      body: { hsm_certificate: 'not a certificate' },
    });
    expect(badPem.code).toBe(Code.INVALID);
    expect(badPem.msg).toBe('hsm_certificate: not a valid PEM certificate');
    const badKey = await call(server, api.hsm.certificates, {
      token,
      body: { client_private_key: 'garbage' },
    });
    expect(badKey.msg).toBe('client_private_key: not a valid PEM private key');
    const mismatch = await call(server, api.hsm.certificates, {
      token,
      body: { client_certificate: client.cert, client_private_key: other.key },
    });
    expect(mismatch.code).toBe(Code.INVALID);
    expect(mismatch.msg).toBe('client_private_key: it does not belong to client_certificate');
    const set = await call(server, api.hsm.certificates, {
      token,
      body: {
        hsm_certificate: other.cert,
        client_certificate: client.cert,
        client_private_key: client.key,
        server_certificate: server_.cert,
      },
    });
    expect(set.code, set.msg).toBe(0);
    expect(set.data).toMatchObject({
      hsm_certificate: other.cert.trim(),
      client_certificate: client.cert.trim(),
      server_certificate: server_.cert.trim(),
      client_private_key_set: true,
    });
    expect(JSON.stringify(set.data)).not.toContain('PRIVATE KEY');
    const keyBody = client.key.split('\n').slice(1, -2).join('');
    expect(await everythingStored()).not.toContain(keyBody.slice(0, 40));
    const cleared = await call(server, api.hsm.certificates, { token, body: { hsm_certificate: '' } });
    expect(cleared.data).toMatchObject({ hsm_certificate: null, client_private_key_set: true });
    expect((await audits('hsm.certificates')).map((r) => r.result)).toEqual([
      'failure', // before any HSM was configured
      'failure',
      'failure',
      'failure',
      'success',
      'success',
    ]);
  });

  it('unbinds back to a seal file, even with the token gone, which unseals after a restart, keys intact', async () => {
    // The token fails now, but the root key is in memory: it can still be moved to a seal file.
    const tokens = join(dirname(hsm.conf), 'tokens');
    renameSync(tokens, `${tokens}.away`);
    const stored = await call(server, api.hsm.test, { token, body: {} });
    expect(stored.code).toBe(Code.STATE_FORBIDS);
    expect(stored.msg).toMatch(/^No HSM token [0-9a-f]+ is reachable/);
    const unbound = await call(server, api.hsm.unbind, { token, body: {} });
    expect(unbound.code, unbound.msg).toBe(0);
    expect(unbound.data).toMatchObject({ root_provider: 'seal-file', bound: false, configured: true });
    expect(unbound.data.seal_file).toBe(sealFile());
    expect(existsSync(sealFile())).toBe(true);
    const again = await call(server, api.hsm.unbind, { token, body: {} });
    expect(again.code).toBe(Code.STATE_FORBIDS);
    expect(again.msg).toBe('The HSM is not bound: the root key is sealed by the seal file');
    // The seal file alone opens the root key.
    try {
      server = await server.restart();
      expect((await call(server, api.system.status)).data.sealed).toBe(false);
      await decryptsOldCiphertext();
    } finally {
      renameSync(`${tokens}.away`, tokens);
    }
    expect((await audits('hsm.unbind')).map((r) => r.result)).toEqual(['success', 'failure']);
    // Bound, restarted, refused and unbound: the PIN never reached the log.
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(PIN);
  });
});
