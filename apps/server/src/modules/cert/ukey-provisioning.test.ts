import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as graphene from 'graphene-pk11';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import {
  call,
  encodeUsername,
  hashForLogin,
  initialize,
  roleIdByName,
  startServer,
  type TestServer,
} from '../../test/harness.js';
import { sm2Encrypt } from '../../platform/crypto/asymmetric.js';
import {
  SOFTHSM_MODULE,
  createEmptyTestToken,
  sm2DecryptWith,
  softhsmAvailable,
  spawnBridge,
  type SpawnedBridge,
  type TestToken,
} from '@ksp/ukey-bridge/testing';

const CONSOLE = 'http://127.0.0.1:8080';
const PIN = '246810';

if (!softhsmAvailable() && process.env.CI === 'true')
  throw new Error('SoftHSM2 and OpenSC are required in CI (Debian softhsm2, opensc)');

/**
 * UKEY certificates the way the console makes them: the bridge makes the key pair and the
 * CSR on a SoftHSM2 token, KSP issues, the bridge writes the certificates (and, for a dual
 * SM2 token, opens the GM/T 0009 envelope on the token and imports the encryption key), and
 * the user then signs in with the password and the token.
 */
describe.runIf(softhsmAvailable())('UKEY certificates through the bridge and a SoftHSM2 token', () => {
  let server: TestServer;
  let admin: string;
  let ukey: TestToken;
  let bridge: SpawnedBridge;
  let userId: string;
  let dir: string;

  beforeAll(async () => {
    server = await startServer('sqlite');
    ({ token: admin } = await initialize(server));
    dir = mkdtempSync(join(tmpdir(), 'ksp-ukey-'));
    ukey = createEmptyTestToken(PIN);
    bridge = await spawnBridge(ukey.conf, CONSOLE, ['--sm2-in-bridge']);
    userId = (
      await call(server, api.user.create, {
        token: admin,
        body: {
          username: 'ukey-bob',
          password: 'Ukey-Bob-Pass-1',
          email: 'ukey-bob@example.test',
          role_ids: [await roleIdByName(server.database.db, 'Operator')],
          must_change_password: false,
        },
      })
    ).data.id;
    const list = await call(server, api.config.list, { token: admin, query: { page: 1, page_size: 100 } });
    const mfa = list.data.data.find((e) => e.key === 'MFA')!;
    await call(server, api.config.edit, { token: admin, body: { id: mfa.id, value: '1' } });
  });
  afterAll(async () => {
    bridge?.stop();
    ukey?.remove();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const openssl = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    return `${r.stdout}${r.stderr}`;
  };

  /** Steps a and c of the console's form around the server's ukeyIssue (step b). */
  async function provision(algorithm: 'RSA-2048' | 'SM2', spec: 'single' | 'dual') {
    const made = await bridge.post('/keygen', { pin: PIN, algorithm, common_name: 'ukey-bob' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const csr = String(made.body.csr);
    writeFileSync(join(dir, 'token.csr'), csr);
    const vfy = algorithm === 'SM2' ? ['-vfyopt', 'distid:1234567812345678'] : [];
    expect(openssl(['req', '-in', 'token.csr', '-verify', '-noout', ...vfy])).toMatch(/verify OK/i);
    const issued = await call(server, api.cert.ukeyIssue, {
      token: admin,
      body: {
        user_id: userId,
        ukey_type: 'PKCS#11',
        algorithm,
        spec,
        serial: String(made.body.serial),
        csr,
      },
    });
    expect(issued.code, issued.msg).toBe(0);
    return { keyId: String(made.body.key_id), serial: String(made.body.serial), issued: issued.data };
  }

  async function signIn() {
    const step1 = await call(server, api.user.login, {
      body: { username: encodeUsername('ukey-bob'), password: await hashForLogin('Ukey-Bob-Pass-1') },
    });
    expect(step1.code).toBe(Code.UKEY_REQUIRED);
    const random = (await call(server, api.user.random, { query: { name: 'ukey-bob' } })).data.random;
    const signed = await bridge.post('/sign', { pin: PIN, data: random });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    return call(server, api.user.verify, { body: { name: 'ukey-bob', sign: String(signed.body.signature) } });
  }

  const A_KEY_PAIR_AND_ITS_CERTIFICATE = [
    graphene.ObjectClass.CERTIFICATE,
    graphene.ObjectClass.PUBLIC_KEY,
    graphene.ObjectClass.PRIVATE_KEY,
  ].sort();
  const classesOf = (objects: { label: string; cls: number }[], label: string) =>
    objects
      .filter((o) => o.label === label)
      .map((o) => o.cls)
      .sort();

  /** Runs `work` in a session on the token logged in with the PIN: checks made outside the bridge. */
  function onToken<T>(work: (session: graphene.Session) => T): T {
    const previous = process.env.SOFTHSM2_CONF;
    process.env.SOFTHSM2_CONF = ukey.conf;
    const mod = graphene.Module.load(SOFTHSM_MODULE, 'check');
    mod.initialize();
    try {
      const slots = mod.getSlots(true);
      let slot: graphene.Slot | undefined;
      for (let i = 0; i < slots.length; i++)
        if (slots.items(i).getToken().flags & graphene.TokenFlag.TOKEN_INITIALIZED) slot = slots.items(i);
      const session = slot!.open(graphene.SessionFlag.SERIAL_SESSION);
      session.login(PIN);
      try {
        return work(session);
      } finally {
        session.logout();
        session.close();
      }
    } finally {
      mod.finalize();
      process.env.SOFTHSM2_CONF = previous;
    }
  }

  /** The token's objects: label, class and, for private keys, whether they are sensitive. */
  const tokenObjects = () =>
    onToken((session) => {
      const found = session.find({});
      const out: { label: string; cls: number; sensitive?: boolean }[] = [];
      for (let i = 0; i < found.length; i++) {
        const o = found.items(i);
        const { label, class: cls } = o.getAttribute({ label: null, class: null });
        const entry: { label: string; cls: number; sensitive?: boolean } = { label: label!, cls: cls! };
        if (cls === graphene.ObjectClass.PRIVATE_KEY)
          entry.sensitive = o.getAttribute({ sensitive: null }).sensitive!;
        out.push(entry);
      }
      return out;
    });

  it('single RSA-2048: the key pair is made on the token, the certificate written to it, and the UKEY login works', async () => {
    const { keyId, issued } = await provision('RSA-2048', 'single');
    expect(issued.encryption).toBeNull();
    const installed = await bridge.post('/install', {
      pin: PIN,
      key_id: keyId,
      certificate: issued.signing.certificate_pem,
    });
    expect(installed.body).toMatchObject({ installed: ['signing'] });
    const onToken = await (await fetch(`${bridge.url}/certificate`, { headers: { origin: CONSOLE } })).json();
    expect(new X509Certificate((onToken as { certificate: string }).certificate).serialNumber).toBe(
      new X509Certificate(issued.signing.certificate_pem).serialNumber,
    );
    const objects = tokenObjects();
    expect(classesOf(objects, 'ksp-sign')).toEqual(A_KEY_PAIR_AND_ITS_CERTIFICATE);
    expect(objects.find((o) => o.cls === graphene.ObjectClass.PRIVATE_KEY)?.sensitive).toBe(true);
    const login = await signIn();
    expect(login.code, login.msg).toBe(0);
    expect(login.data.token).toBeTruthy();
  });

  it('refuses to write a certificate that is not for the token key, and a PIN that is wrong', async () => {
    const made = await bridge.post('/keygen', { pin: PIN, algorithm: 'RSA-2048', common_name: 'ukey-bob' });
    const other = await bridge.post('/keygen', { pin: PIN, algorithm: 'RSA-2048', common_name: 'ukey-bob' });
    // The second keygen removed the first, unfinished pair.
    const gone = await bridge.post('/install', { pin: PIN, key_id: made.body.key_id, certificate: 'x' });
    expect(gone).toMatchObject({ status: 400, body: { error: 'certificate: not a PEM certificate' } });
    const ca = (await call(server, api.cert.caList, { token: admin, query: { page: 1, page_size: 10 } })).data
      .data[0]!;
    const caPem = Buffer.from(
      (await call(server, api.cert.caDownload, { token: admin, query: { id: ca.id, kind: 'cert-pem' } })).data
        .content,
      'base64',
    ).toString('utf8');
    const wrongKey = await bridge.post('/install', {
      pin: PIN,
      key_id: other.body.key_id,
      certificate: caPem,
    });
    expect(wrongKey).toMatchObject({
      status: 400,
      body: { error: 'certificate: it is not for the key pair made on this token' },
    });
    const wrongPin = await bridge.post('/keygen', { pin: '000000', algorithm: 'SM2', common_name: 'x' });
    expect(wrongPin).toMatchObject({ status: 401, body: { error: 'The PIN is incorrect' } });
    // The RSA login certificate written earlier still signs in.
    expect((await signIn()).code).toBe(0);
  });

  it('dual SM2: the envelope opens on the token, the encryption key is imported, and the UKEY login takes SM2', async () => {
    const { keyId, issued } = await provision('SM2', 'dual');
    const envelope = String(issued.enveloped_key);
    const encryptionPem = issued.encryption!.certificate_pem;

    // Hostile input first: a broken or tampered envelope is refused and nothing is written.
    // The envelope ends with Sm2PublicKey (03 42 00 + 65 bytes) and Sm2EncryptedPrivateKey
    // (03 21 00 + 32 bytes); SM2Cipher's last byte (of the ciphertext) sits just before them.
    const tamper = (fromEnd: number) => {
      const bytes = Buffer.from(envelope, 'base64');
      const at = bytes.length - fromEnd;
      bytes[at] = (bytes[at] ?? 0) ^ 0x01;
      return bytes.toString('base64');
    };
    const bad = [
      { enveloped_key: 'not base64!', error: /^enveloped_key: must be Base64/ },
      { enveloped_key: Buffer.from('hello').toString('base64'), error: /^enveloped_key: not DER/ },
      { enveloped_key: tamper(104), error: /^enveloped_key: it does not open with this token's signing key/ },
      { enveloped_key: tamper(1), error: /^enveloped_key: the private key does not match its public key/ },
      { enveloped_key: tamper(40), error: /^encryption_certificate: it does not match the enveloped key/ },
    ];
    for (const { enveloped_key, error } of bad) {
      const answer = await bridge.post('/install', {
        pin: PIN,
        key_id: keyId,
        certificate: issued.signing.certificate_pem,
        encryption_certificate: encryptionPem,
        enveloped_key,
      });
      expect(answer.status).toBe(400);
      expect(String(answer.body.error)).toMatch(error);
    }
    const alone = await bridge.post('/install', {
      pin: PIN,
      key_id: keyId,
      certificate: issued.signing.certificate_pem,
      enveloped_key: envelope,
    });
    expect(alone.body.error).toBe('encryption_certificate and enveloped_key go together (a dual UKEY)');
    expect(tokenObjects().filter((o) => o.label === 'ksp-enc')).toEqual([]);

    const installed = await bridge.post('/install', {
      pin: PIN,
      key_id: keyId,
      certificate: issued.signing.certificate_pem,
      encryption_certificate: encryptionPem,
      enveloped_key: envelope,
    });
    expect(installed.body).toMatchObject({ installed: ['signing', 'encryption'] });
    const objects = tokenObjects();
    // The RSA objects of the earlier provisioning are gone; the new pairs are on the token.
    expect(objects.filter((o) => o.label === 'ksp-sign')).toHaveLength(3);
    expect(classesOf(objects, 'ksp-enc')).toEqual(A_KEY_PAIR_AND_ITS_CERTIFICATE);
    expect(
      objects.find((o) => o.label === 'ksp-enc' && o.cls === graphene.ObjectClass.PRIVATE_KEY)?.sensitive,
    ).toBe(true);

    // The imported key is the encryption certificate's: a message SM2-encrypted to the
    // certificate opens with the token's ECDH on that key.
    const encSpki = new X509Certificate(encryptionPem).publicKey.export({ type: 'spki', format: 'der' });
    const secret = Buffer.from('sixteen byte key');
    const cipher = sm2Encrypt(encSpki, secret);
    const opened = onToken((session) => {
      const key = session
        .find({ class: graphene.ObjectClass.PRIVATE_KEY, label: 'ksp-enc' })
        .items(0)
        .toType<graphene.PrivateKey>();
      const sharedX = (c1: Buffer) =>
        Buffer.from(
          session
            .deriveKey(
              { name: 'ECDH1_DERIVE', params: new graphene.EcdhParams(graphene.EcKdf.NULL, null, c1) },
              key,
              {
                class: graphene.ObjectClass.SECRET_KEY,
                keyType: graphene.KeyType.GENERIC_SECRET,
                token: false,
                sensitive: false,
                extractable: true,
                valueLen: 32,
              },
            )
            .getAttribute({ value: null }).value!,
        );
      return sm2DecryptWith(sharedX, cipher.subarray(0, 65), cipher.subarray(65, 97), cipher.subarray(97));
    });
    expect(opened?.equals(secret)).toBe(true);

    // The dual token's signing certificate is the login one now.
    const login = await signIn();
    expect(login.code, login.msg).toBe(0);
    const listed = await call(server, api.cert.list, {
      token: admin,
      query: { page: 1, page_size: 20, source: 'ukey' },
    });
    expect(listed.data.data.map((c) => c.usage).sort()).toEqual(['encryption', 'signature', 'signature']);
  });

  it('without --sm2-in-bridge the bridge says it cannot sign SM2 with this token', async () => {
    const plain = await spawnBridge(ukey.conf, CONSOLE);
    try {
      const answer = await plain.post('/keygen', { pin: PIN, algorithm: 'SM2', common_name: 'ukey-bob' });
      expect(answer.status).toBe(501);
      expect(String(answer.body.error)).toMatch(/no SM2 signing/);
    } finally {
      plain.stop();
    }
  });
});
