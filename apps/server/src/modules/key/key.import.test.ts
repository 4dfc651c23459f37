import { execFileSync } from 'node:child_process';
import { constants, createHash, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { slh_dsa_sha2_128f } from '@noble/post-quantum/slh-dsa.js';
import { describe, expect, it } from 'vitest';
import { api, Code, Usage } from '@ksp/contracts';
import { sm2Decrypt } from '../../platform/crypto/asymmetric.js';
import { generateKey } from '../../platform/crypto/generate.js';
import { call, callUnchecked, domainWithAdmin, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

const b64 = (b: Uint8Array | string) =>
  (typeof b === 'string' ? Buffer.from(b) : Buffer.from(b)).toString('base64');
const seedOf = (length: number, fill: number) => new Uint8Array(length).fill(fill);
/** A copy of `bytes` with the lowest bit of byte `index` flipped. */
const flipped = (bytes: Uint8Array, index: number) => {
  const copy = Buffer.from(bytes);
  copy[index]! ^= 1;
  return copy;
};
const SIGN = Usage.Sign | Usage.Verify;
const KEM = Usage.KeyAgreement;

describe.each(await engines())('key/import of public and post-quantum keys on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started), { timeout: 60_000 });

  const importKey = (body: Record<string, unknown>, lang?: string) =>
    callUnchecked(server, api.key.import, { token, body, ...(lang ? { lang } : {}) });
  /** A key imported from its raw bytes (`format`: seed, expanded or public). */
  const importRaw = (
    name: string,
    algorithm: string,
    format: string,
    bytes: Uint8Array,
    usage_mask: number,
  ) => importKey({ name, algorithm, format, content: b64(bytes), usage_mask });

  it('imports an EC public key alone: a "public" row that verifies (DER and P1363) and does nothing else', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
    const made = await importRaw('partner-ec', 'EC-P256', 'spki', spki, Usage.Verify);
    expect(made.code, made.msg).toBe(0);
    expect(made.data).toMatchObject({
      name: 'partner-ec',
      object_type: 'public',
      linked_key_id: null,
      usages: ['verify'],
      state: 'active',
    });
    const id = made.data.id;
    const data = b64('signed outside KSP');
    for (const format of ['der', 'p1363'] as const) {
      const signature = nodeSign('sha256', Buffer.from('signed outside KSP'), {
        key: pair.privateKey,
        dsaEncoding: format === 'der' ? 'der' : 'ieee-p1363',
      });
      const ok = await call(server, api.crypto.verify, {
        token,
        body: { key_id: id, data, signature: b64(signature), signature_format: format },
      });
      expect(ok.data, format).toMatchObject({ valid: true, version: 1 });
      // The other encoding of the same signature is a malformed signature: not valid, no error.
      const other = await call(server, api.crypto.verify, {
        token,
        body: {
          key_id: id,
          data,
          signature: b64(signature),
          signature_format: format === 'der' ? 'p1363' : 'der',
        },
      });
      expect(other).toMatchObject({ code: 0, data: { valid: false, version: null } });
    }
    const empty = await call(server, api.crypto.verify, { token, body: { key_id: id, data, signature: '' } });
    expect(empty).toMatchObject({ code: 0, data: { valid: false } });

    // Listed and shown as a public key; exported as the SPKI it came in as.
    const listed = await call(server, api.key.list, { token, query: { type: 'public', name: 'partner-ec' } });
    expect(listed.data.data.map((k) => k.id)).toEqual([id]);
    const exported = await call(server, api.key.export, { token, body: { id } });
    expect(exported.data).toMatchObject({ format: 'spki', wrapping: 'none', material: b64(spki) });

    // No private key: no signing, no new version, no clone.
    const sign = await call(server, api.crypto.sign, { token, body: { key_id: id, data } });
    expect(sign.code).toBe(Code.STATE_FORBIDS);
    const rotate = await call(server, api.key.addVersion, { token, body: { id } });
    expect(rotate).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'partner-ec' is an imported public key: it has no private key to add a version",
    });
    const clone = await call(server, api.key.clone, { token, body: { id, new_name: 'partner-ec-2' } });
    expect(clone.code).toBe(Code.STATE_FORBIDS);

    // The import is audited with its format, and no key bytes.
    const audit = await server.database.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'key.import')
      .where('target', '=', 'partner-ec')
      .executeTakeFirstOrThrow();
    expect(String(audit.details)).toContain('"format":"spki"');
    expect(String(audit.details)).not.toContain(b64(spki).slice(40, 80));
  });

  it('refuses a public key asked to sign, decrypt or decapsulate, naming usage_mask in both languages', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' });
    const body = { name: 'partner-rsa', algorithm: 'RSA-2048', format: 'pem', content: pem };
    const en = await importKey({ ...body, usage_mask: Usage.Sign | Usage.Verify });
    expect(en).toMatchObject({
      code: Code.INVALID,
      msg: 'usage_mask: a public key only verifies, encrypts, wraps or encapsulates; Sign (0x1) needs the private key',
    });
    const zh = await importKey({ ...body, usage_mask: Usage.Encrypt | Usage.Decrypt }, 'zh-CN');
    expect(zh.code).toBe(Code.INVALID);
    expect(zh.msg).toBe('usage_mask：公钥只能验签、加密、包装或封装；Decrypt (0x8) 需要私钥');

    // A file holding the public and the private block is one key too many, not read in part.
    const both = `${String(pem)}${String(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }))}`;
    expect(await importKey({ ...body, content: both, usage_mask: Usage.Verify })).toMatchObject({
      code: Code.INVALID,
      msg: 'content: holds 2 PEM blocks; paste one key (one BEGIN … END block)',
    });

    const made = await importKey({ ...body, usage_mask: Usage.Verify });
    expect(made.code, made.msg).toBe(0);
    const message = Buffer.from('RSA, both paddings');
    const pkcs1 = nodeSign('sha256', message, { key: rsa.privateKey, padding: constants.RSA_PKCS1_PADDING });
    const pss = nodeSign('sha256', message, {
      key: rsa.privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    });
    const verify = (signature: Buffer, rsa_padding?: 'pss' | 'pkcs1v15') =>
      call(server, api.crypto.verify, {
        token,
        body: {
          key_id: made.data.id,
          data: b64(message),
          signature: b64(signature),
          ...(rsa_padding ? { rsa_padding } : {}),
        },
      });
    expect((await verify(pkcs1, 'pkcs1v15')).data.valid).toBe(true);
    expect((await verify(pss, 'pss')).data.valid).toBe(true);
    expect((await verify(pss)).data.valid).toBe(true); // PSS by default
    expect((await verify(pkcs1, 'pss')).data.valid).toBe(false);
    const wrongOption = await call(server, api.crypto.verify, {
      token,
      body: { key_id: made.data.id, data: b64(message), signature: b64(pss), signature_format: 'p1363' },
    });
    expect(wrongOption).toMatchObject({
      code: Code.INVALID,
      msg: 'signature_format: applies to ECDSA (EC-*) and SM2 keys only, not RSA-2048',
    });

    // An EC key given as RSA, a private PEM with a public-only usage, no PEM at all.
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const mismatch = await importKey({
      ...body,
      name: 'not-rsa',
      content: ec.publicKey.export({ type: 'spki', format: 'pem' }),
      usage_mask: Usage.Verify,
    });
    expect(mismatch).toMatchObject({ code: Code.INVALID, msg: 'content: the key is not a RSA-2048 key' });
    const noPem = await importKey({
      ...body,
      name: 'no-pem',
      content: 'hello there',
      usage_mask: Usage.Verify,
    });
    expect(noPem).toMatchObject({
      code: Code.INVALID,
      msg: 'content: no PEM block PUBLIC KEY or PRIVATE KEY found',
    });
  });

  it('signs ECDSA and SM2 in P1363 on request, and the imported public half of SM2 verifies both forms', async () => {
    const sm2 = await call(server, api.key.create, {
      token,
      body: { name: 'sm2-signer', algorithm: 'SM2', usage_mask: Usage.Sign | Usage.Verify },
    });
    const data = b64('国密签名');
    const p1363 = await call(server, api.crypto.sign, {
      token,
      body: { key_id: sm2.data.id, data, signature_format: 'p1363' },
    });
    expect(Buffer.from(p1363.data.signature, 'base64')).toHaveLength(64);
    const der = await call(server, api.crypto.sign, { token, body: { key_id: sm2.data.id, data } });
    expect(Buffer.from(der.data.signature, 'base64')[0]).toBe(0x30);
    const pub = await call(server, api.key.export, { token, body: { id: sm2.data.linked_key_id! } });
    const imported = await importKey({
      name: 'sm2-partner',
      algorithm: 'SM2',
      format: 'spki',
      content: pub.data.material,
      usage_mask: Usage.Verify,
    });
    expect(imported.code, imported.msg).toBe(0);
    for (const [signature, signature_format] of [
      [p1363.data.signature, 'p1363'],
      [der.data.signature, 'der'],
    ] as const) {
      const checked = await call(server, api.crypto.verify, {
        token,
        body: { key_id: imported.data.id, data, signature, signature_format },
      });
      expect(checked.data.valid, signature_format).toBe(true);
    }
  });

  it('imports ML-DSA from its seed and its expanded key, with the public half derived and checked', async () => {
    const seed = seedOf(32, 7);
    const reference = ml_dsa44.keygen(seed);
    const noFormat = await importKey({
      name: 'dsa-x',
      algorithm: 'ML-DSA-44',
      content: b64(seed),
      usage_mask: SIGN,
    });
    expect(noFormat).toMatchObject({
      code: Code.INVALID,
      msg: 'format: name the format of a ML-DSA-44 key (seed, expanded, public)',
    });
    const short = await importRaw('dsa-x', 'ML-DSA-44', 'seed', seed.subarray(0, 31), SIGN);
    expect(short).toMatchObject({ code: Code.INVALID, msg: 'content: ML-DSA-44 needs 32 bytes, got 31' });
    const wrongPublic = await importKey({
      name: 'dsa-x',
      algorithm: 'ML-DSA-44',
      format: 'seed',
      content: b64(seed),
      public_key: b64(ml_dsa44.keygen(seedOf(32, 8)).publicKey),
      usage_mask: SIGN,
    });
    expect(wrongPublic).toMatchObject({
      code: Code.INVALID,
      msg: 'public_key: differs from the public key derived from content',
    });

    const fromSeed = await importKey({
      name: 'dsa-seed',
      algorithm: 'ML-DSA-44',
      format: 'seed',
      content: b64(seed),
      public_key: b64(reference.publicKey),
      usage_mask: SIGN,
    });
    expect(fromSeed.code, fromSeed.msg).toBe(0);
    expect(fromSeed.data.object_type).toBe('private');
    const half = await call(server, api.key.export, { token, body: { id: fromSeed.data.linked_key_id! } });
    expect(half.data).toMatchObject({ format: 'standard', material: b64(reference.publicKey) });

    // Signed in KSP with a context, checked by the library with the same context.
    const context = Buffer.from('ksp-context');
    const signed = await call(server, api.crypto.sign, {
      token,
      body: { key_id: fromSeed.data.id, data: b64('pq'), context: b64(context) },
    });
    expect(signed.code, signed.msg).toBe(0);
    const signature = Buffer.from(signed.data.signature, 'base64');
    expect(ml_dsa44.verify(signature, Buffer.from('pq'), reference.publicKey, { context })).toBe(true);
    expect(ml_dsa44.verify(signature, Buffer.from('pq'), reference.publicKey)).toBe(false);

    const expanded = await importRaw('dsa-expanded', 'ML-DSA-44', 'expanded', reference.secretKey, SIGN);
    expect(expanded.code, expanded.msg).toBe(0);
    const half2 = await call(server, api.key.export, { token, body: { id: expanded.data.linked_key_id! } });
    expect(half2.data.material).toBe(b64(reference.publicKey));
    const broken = flipped(reference.secretKey, 70); // inside tr = H(pk)
    const inconsistent = await importRaw('dsa-broken', 'ML-DSA-44', 'expanded', broken, SIGN);
    expect(inconsistent).toMatchObject({
      code: Code.INVALID,
      msg: 'content: the ML-DSA-44 private key is inconsistent (its public-key hash tr does not match the key it holds)',
    });
  });

  it('imports ML-KEM expanded and public keys: the public key encapsulates, the private one decapsulates', async () => {
    const reference = ml_kem768.keygen(seedOf(64, 3));
    const priv = await importRaw('kem-expanded', 'ML-KEM-768', 'expanded', reference.secretKey, KEM);
    expect(priv.code, priv.msg).toBe(0);
    const pub = await importRaw('kem-public', 'ML-KEM-768', 'public', reference.publicKey, KEM);
    expect(pub.data).toMatchObject({ object_type: 'public', linked_key_id: null });
    const enc = await call(server, api.crypto.encapsulate, { token, body: { key_id: pub.data.id } });
    const dec = await call(server, api.crypto.decapsulate, {
      token,
      body: { key_id: priv.data.id, ciphertext: enc.data.ciphertext },
    });
    expect(dec.data.shared_secret).toBe(enc.data.shared_secret);
    const byPublic = await call(server, api.crypto.decapsulate, {
      token,
      body: { key_id: pub.data.id, ciphertext: enc.data.ciphertext },
    });
    expect(byPublic).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'kem-public' is a public key imported without its private key: it cannot decapsulate",
    });

    // The decapsulation key's embedded H(ek) must match its ek (FIPS 203 §7.3).
    const broken = flipped(reference.secretKey, 2400 - 40);
    const refused = await importRaw('kem-broken', 'ML-KEM-768', 'expanded', broken, KEM);
    expect(refused.code).toBe(Code.INVALID);
    expect(refused.msg).toContain('content: the ML-KEM-768 private key is inconsistent');
    // An encapsulation key whose coefficients are not reduced mod q (FIPS 203 §7.2).
    const unreduced = Buffer.from(reference.publicKey);
    unreduced.fill(0xff, 0, 3);
    const badPublic = await importRaw('kem-bad-public', 'ML-KEM-768', 'public', unreduced, KEM);
    expect(badPublic.code).toBe(Code.INVALID);
  });

  it('imports SLH-DSA from its standard private key, PK.root checked', async () => {
    const reference = slh_dsa_sha2_128f.keygen(seedOf(48, 9));
    const made = await importRaw('slh', 'SLH-DSA-SHA2-128F', 'expanded', reference.secretKey, SIGN);
    expect(made.code, made.msg).toBe(0);
    const half = await call(server, api.key.export, { token, body: { id: made.data.linked_key_id! } });
    expect(half.data.material).toBe(b64(reference.publicKey));
    const broken = flipped(reference.secretKey, 63); // the last byte of PK.root
    const refused = await importRaw('slh-broken', 'SLH-DSA-SHA2-128F', 'expanded', broken, SIGN);
    expect(refused).toMatchObject({
      code: Code.INVALID,
      msg: 'content: the SLH-DSA-SHA2-128F private key is inconsistent (PK.root does not match SK.seed and PK.seed)',
    });
  });

  it('verifies signatures made by the openssl command line with keys it made (EC PEM, RSA PSS and PKCS#1 v1.5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ksp-openssl-'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir });
    try {
      writeFileSync(join(dir, 'msg'), 'made outside KSP');
      const data = b64('made outside KSP');
      openssl('ecparam', '-name', 'secp384r1', '-genkey', '-noout', '-out', 'ec.pem');
      openssl('pkey', '-in', 'ec.pem', '-pubout', '-out', 'ec.pub.pem');
      openssl('dgst', '-sha384', '-sign', 'ec.pem', '-out', 'ec.sig', 'msg');
      const ec = await importKey({
        name: 'openssl-ec',
        algorithm: 'EC-P384',
        format: 'pem',
        content: readFileSync(join(dir, 'ec.pub.pem'), 'utf8'),
        usage_mask: Usage.Verify,
      });
      expect(ec.code, ec.msg).toBe(0);
      const ecSig = b64(readFileSync(join(dir, 'ec.sig')));
      const ecOk = await call(server, api.crypto.verify, {
        token,
        body: { key_id: ec.data.id, data, signature: ecSig },
      });
      expect(ecOk.data.valid).toBe(true);

      openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072', '-out', 'rsa.pem');
      openssl('pkey', '-in', 'rsa.pem', '-pubout', '-outform', 'DER', '-out', 'rsa.der');
      const rsaDer = readFileSync(join(dir, 'rsa.der'));
      const rsa = await importRaw('openssl-rsa', 'RSA-3072', 'spki', rsaDer, Usage.Verify);
      expect(rsa.code, rsa.msg).toBe(0);
      const pssArgs = ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:digest'];
      openssl('dgst', '-sha256', ...pssArgs, '-sign', 'rsa.pem', '-out', 'pss.sig', 'msg');
      openssl('dgst', '-sha256', '-sign', 'rsa.pem', '-out', 'pkcs1.sig', 'msg');
      for (const [file, rsa_padding] of [
        ['pss.sig', 'pss'],
        ['pkcs1.sig', 'pkcs1v15'],
      ] as const) {
        const checked = await call(server, api.crypto.verify, {
          token,
          body: { key_id: rsa.data.id, data, signature: b64(readFileSync(join(dir, file))), rsa_padding },
        });
        expect(checked.data.valid, rsa_padding).toBe(true);
      }
      // Encrypting with the imported public key: the envelope names the public key, whose
      // private half is not in KSP, so KSP cannot decrypt it.
      const encrypting = await importRaw('openssl-rsa-enc', 'RSA-3072', 'spki', rsaDer, Usage.Encrypt);
      expect(encrypting.code, encrypting.msg).toBe(0);
      const sealed = await call(server, api.crypto.encrypt, {
        token,
        body: { key_id: encrypting.data.id, plaintext: b64('for the key holder') },
      });
      expect(sealed.code, sealed.msg).toBe(0);
      const opened = await call(server, api.crypto.decrypt, {
        token,
        body: { ciphertext: sealed.data.ciphertext },
      });
      expect(opened.code).toBe(Code.STATE_FORBIDS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exports an imported AES key wrapped by an SM2 public key (SPKI), which the SM2 private key opens', async () => {
    const aes = Buffer.alloc(32, 0x5a);
    const made = await importKey({
      name: 'aes-to-sm2',
      algorithm: 'AES-256',
      content: b64(aes),
      usage_mask: Usage.Encrypt | Usage.Decrypt,
      exportable: true,
    });
    expect(made.code, made.msg).toBe(0);
    const recipient = generateKey('SM2');
    const exported = await call(server, api.key.export, {
      token,
      body: { id: made.data.id, wrap_public_key: b64(recipient.publicKey!) },
    });
    expect(exported.data, exported.msg).toMatchObject({ format: 'raw', wrapping: 'SM2' });
    expect(sm2Decrypt(recipient.material, Buffer.from(exported.data.material, 'base64')).equals(aes)).toBe(
      true,
    );
  });

  it("imports into the caller's domain only", async () => {
    const branch = await domainWithAdmin(server, token, {
      domain: 'import-branch',
      username: 'import-admin',
      password: 'Branch-Pass-1',
    });
    const ed = generateKeyPairSync('ed25519');
    const made = await callUnchecked(server, api.key.import, {
      token: branch.token,
      body: {
        name: 'branch-ed',
        algorithm: 'ED25519',
        format: 'spki',
        content: b64(ed.publicKey.export({ type: 'spki', format: 'der' })),
        usage_mask: Usage.Verify,
      },
    });
    expect(made.code, made.msg).toBe(0);
    const fromRoot = await call(server, api.key.detail, { token, query: { id: made.data.id } });
    expect(fromRoot.code).toBe(Code.NOT_FOUND);
    const inBranch = await call(server, api.key.detail, { token: branch.token, query: { id: made.data.id } });
    expect(inBranch.data.object_type).toBe('public');
    // A hash of the material never reaches the audit details either.
    const digest = createHash('sha256')
      .update(ed.publicKey.export({ type: 'spki', format: 'der' }))
      .digest('hex');
    const records = await server.database.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('target', '=', 'branch-ed')
      .execute();
    expect(records.map((r) => String(r.details)).join()).not.toContain(digest.slice(0, 16));
  });
});
