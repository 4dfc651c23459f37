import { describe, expect, it } from 'vitest';
import { api, Code, Usage, USAGE_BITS, type AlgorithmId } from '@ksp/contracts';
import { encodeCiphertext, parseCiphertext } from '../../platform/crypto/ciphertext.js';
import { call, callUnchecked, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Flips one bit of a Base64 value near its end (inside the ciphertext body or tag). */
function tamper(value: string): string {
  const bytes = Buffer.from(value, 'base64');
  bytes[bytes.length - 1]! ^= 0x01;
  return bytes.toString('base64');
}

describe.each(await engines())('the crypto API and key pairs on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started));

  const create = async (name: string, algorithm: AlgorithmId, usage_mask: number) => {
    const created = await call(server, api.key.create, { token, body: { name, algorithm, usage_mask } });
    expect(created.code, created.msg).toBe(0);
    return created.data;
  };
  const audits = (target: string, action: string) =>
    server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details'])
      .where('target', '=', target)
      .where('action', '=', action)
      .orderBy('at')
      .execute();

  it('lets the public half of a pair only verify and encrypt, in every call and language', async () => {
    const signer = await create('pair-sign', 'EC-P256', Usage.Sign | Usage.Verify);
    const pub = signer.linked_key_id!;
    const data = b64('contract');

    const byPublic = await call(server, api.crypto.sign, { token, body: { key_id: pub, data } });
    expect(byPublic).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'pair-sign.pub' is the public key of a key pair: it cannot sign (that takes the private key 'pair-sign')",
      data: null,
    });
    const zh = await call(server, api.crypto.sign, { token, lang: 'zh-CN', body: { key_id: pub, data } });
    expect(zh.msg).toBe('密钥“pair-sign.pub”是密钥对的公钥，不能执行 sign（需使用私钥“pair-sign”）');

    // The private half signs; either half verifies.
    const signed = await call(server, api.crypto.sign, { token, body: { key_id: signer.id, data } });
    expect(signed.code).toBe(0);
    for (const id of [pub, signer.id]) {
      const checked = await call(server, api.crypto.verify, {
        token,
        body: { key_id: id, data, signature: signed.data.signature },
      });
      expect(checked.data).toMatchObject({ valid: true, version: 1 });
    }

    const enc = await create('pair-enc', 'RSA-2048', Usage.Encrypt | Usage.Decrypt);
    const encrypted = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: enc.linked_key_id!, plaintext: b64('secret') },
    });
    expect(encrypted.code).toBe(0);
    const decryptByPublic = await call(server, api.crypto.decrypt, {
      token,
      body: { ciphertext: encrypted.data.ciphertext, key_id: enc.linked_key_id! },
    });
    expect(decryptByPublic.code).toBe(Code.INVALID); // the ciphertext names the private key
    // A ciphertext whose header is edited to name the public half is not opened through the link.
    const renamed = encodeCiphertext({
      ...parseCiphertext(encrypted.data.ciphertext),
      keyId: enc.linked_key_id!,
    });
    const decryptRenamed = await call(server, api.crypto.decrypt, { token, body: { ciphertext: renamed } });
    expect(decryptRenamed).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'pair-enc.pub' is the public key of a key pair: it cannot decrypt (that takes the private key 'pair-enc')",
    });
    const decrypted = await call(server, api.crypto.decrypt, {
      token,
      body: { ciphertext: encrypted.data.ciphertext },
    });
    expect(decrypted.data).toMatchObject({ plaintext: b64('secret'), key_id: enc.id });

    const kem = await create('pair-kem', 'ML-KEM-512', Usage.KeyAgreement);
    const encapsulated = await call(server, api.crypto.encapsulate, {
      token,
      body: { key_id: kem.linked_key_id! },
    });
    expect(encapsulated.code).toBe(0);
    const decapsulateByPublic = await call(server, api.crypto.decapsulate, {
      token,
      body: { key_id: kem.linked_key_id!, ciphertext: encapsulated.data.ciphertext },
    });
    expect(decapsulateByPublic).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'pair-kem.pub' is the public key of a key pair: it cannot decapsulate (that takes the private key 'pair-kem')",
    });

    const batch = await call(server, api.crypto.batch, {
      token,
      body: {
        operations: [
          { op: 'sign', key_id: pub, data },
          { op: 'sign', key_id: signer.id, data },
        ],
      },
    });
    expect(batch.data.map((r) => r.code)).toEqual([Code.STATE_FORBIDS, 0]);
    expect(batch.data[0]?.msg).toBe(byPublic.msg);

    // Exporting the public half gives the public key only, even when the pair is exportable.
    await call(server, api.key.update, { token, body: { id: signer.id, exportable: true } });
    const exported = await call(server, api.key.export, { token, body: { id: pub } });
    expect(exported.data).toMatchObject({ format: 'spki', wrapping: 'none', wrapped_kek: null });
    expect(exported.data.material).toBe(
      (
        await server.database.db
          .selectFrom('kms_key_version')
          .select('public_key')
          .where('key_id', '=', pub)
          .executeTakeFirstOrThrow()
      ).public_key,
    );
  });

  it('verifies signatures, MACs and wrapped keys made before a rotation, and says which version matched', async () => {
    const data = b64('signed before the rotation');
    const signer = await create('rotating-signer', 'ED25519', Usage.Sign | Usage.Verify);
    const v1 = await call(server, api.crypto.sign, { token, body: { key_id: signer.id, data } });
    await call(server, api.key.addVersion, { token, body: { id: signer.id } });
    await call(server, api.key.addVersion, { token, body: { id: signer.id } });
    const v3 = await call(server, api.crypto.sign, { token, body: { key_id: signer.id, data } });
    expect(v3.data.version).toBe(3);
    const verify = (signature: string, version?: number) =>
      call(server, api.crypto.verify, {
        token,
        body: { key_id: signer.linked_key_id!, data, signature, ...(version ? { version } : {}) },
      });
    expect((await verify(v1.data.signature)).data).toMatchObject({ valid: true, version: 1 });
    expect((await verify(v3.data.signature)).data).toMatchObject({ valid: true, version: 3 });
    expect((await verify(v1.data.signature, 1)).data).toMatchObject({ valid: true, version: 1 });
    // With a version, only that one is checked.
    expect((await verify(v1.data.signature, 2)).data).toMatchObject({ valid: false, version: null });
    expect((await verify(v1.data.signature, 4)).code).toBe(Code.STATE_FORBIDS);

    const hmac = await create('rotating-mac', 'HMAC-SHA256', Usage.MacGenerate | Usage.MacVerify);
    const mac1 = await call(server, api.crypto.mac, { token, body: { key_id: hmac.id, data } });
    await call(server, api.key.addVersion, { token, body: { id: hmac.id } });
    const macCheck = await call(server, api.crypto.macVerify, {
      token,
      body: { key_id: hmac.id, data, mac: mac1.data.mac },
    });
    expect(macCheck.data).toMatchObject({ valid: true, version: 1 });
    const macPinned = await call(server, api.crypto.macVerify, {
      token,
      body: { key_id: hmac.id, data, mac: mac1.data.mac, version: 2 },
    });
    expect(macPinned.data).toMatchObject({ valid: false, version: null });

    const kek = await create('rotating-kek', 'AES-256', Usage.WrapKey | Usage.UnwrapKey);
    const material = b64('0123456789abcdef0123456789abcdef');
    const wrapped = await call(server, api.crypto.wrap, {
      token,
      body: { key_id: kek.id, key_material: material },
    });
    await call(server, api.key.addVersion, { token, body: { id: kek.id } });
    const unwrapped = await call(server, api.crypto.unwrap, {
      token,
      body: { key_id: kek.id, wrapped: wrapped.data.wrapped },
    });
    expect(unwrapped.data).toMatchObject({ key_material: material, version: 1 });
  });

  it('audits every failed check: tampered ciphertexts, wrong signatures, MACs and wrapped keys', async () => {
    const aes = await create(
      'audited-aes',
      'AES-256',
      Usage.Encrypt | Usage.Decrypt | Usage.WrapKey | Usage.UnwrapKey,
    );
    const enc = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: aes.id, plaintext: b64('x') },
    });
    const tampered = await call(server, api.crypto.decrypt, {
      token,
      body: { ciphertext: tamper(enc.data.ciphertext) },
    });
    expect(tampered).toMatchObject({
      code: Code.INVALID,
      msg: 'The ciphertext cannot be decrypted: wrong key, wrong additional data, or altered',
    });
    const decryptTrail = await audits('audited-aes', 'crypto.decrypt');
    expect(decryptTrail.map((r) => r.result)).toEqual(['failure']);
    expect(JSON.parse(decryptTrail[0]!.details)).toMatchObject({
      key_id: aes.id,
      version: 1,
      reason: 'authentication-failed',
    });

    const garbage = await call(server, api.crypto.decrypt, {
      token,
      body: { ciphertext: b64('not a ciphertext') },
    });
    expect(garbage.code).toBe(Code.INVALID);
    const malformed = await server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details'])
      .where('action', '=', 'crypto.decrypt')
      .where('target', '=', '-')
      .execute();
    expect(malformed.map((r) => [r.result, JSON.parse(r.details) as unknown])).toEqual([
      ['failure', { reason: 'malformed' }],
    ]);

    const wrapped = await call(server, api.crypto.wrap, {
      token,
      body: { key_id: aes.id, key_material: b64('k'.repeat(32)) },
    });
    const badUnwrap = await call(server, api.crypto.unwrap, {
      token,
      body: { key_id: aes.id, wrapped: tamper(wrapped.data.wrapped) },
    });
    expect(badUnwrap).toMatchObject({
      code: Code.INVALID,
      msg: 'The wrapped key cannot be unwrapped: wrong key or version, or altered',
    });
    expect((await audits('audited-aes', 'crypto.unwrap')).map((r) => r.result)).toEqual(['failure']);

    const signer = await create('audited-signer', 'EC-P256', Usage.Sign | Usage.Verify);
    const sig = await call(server, api.crypto.sign, { token, body: { key_id: signer.id, data: b64('a') } });
    const wrong = await call(server, api.crypto.verify, {
      token,
      body: { key_id: signer.linked_key_id!, data: b64('b'), signature: sig.data.signature },
    });
    expect(wrong.data).toMatchObject({ valid: false, version: null });
    const right = await call(server, api.crypto.verify, {
      token,
      body: { key_id: signer.linked_key_id!, data: b64('a'), signature: sig.data.signature },
    });
    expect(right.data.valid).toBe(true);
    const verifyTrail = await audits('audited-signer.pub', 'crypto.verify');
    expect(verifyTrail.map((r) => r.result)).toEqual(['failure', 'success']);
    expect(JSON.parse(verifyTrail[0]!.details)).toMatchObject({ reason: 'mismatch' });

    const hmac = await create('audited-mac', 'HMAC-SHA256', Usage.MacGenerate | Usage.MacVerify);
    const mac = await call(server, api.crypto.mac, { token, body: { key_id: hmac.id, data: b64('a') } });
    const badMac = await call(server, api.crypto.macVerify, {
      token,
      body: { key_id: hmac.id, data: b64('b'), mac: mac.data.mac },
    });
    expect(badMac.data.valid).toBe(false);
    expect((await audits('audited-mac', 'crypto.mac-verify')).map((r) => r.result)).toEqual(['failure']);

    // The key's own trail (what the console shows) lists the failures too.
    const trail = await call(server, api.key.audit, { token, query: { id: aes.id, page: 1, page_size: 20 } });
    expect(
      trail.data.data
        .filter((r) => r.result === 'failure')
        .map((r) => r.action)
        .sort(),
    ).toEqual(['crypto.decrypt', 'crypto.unwrap']);
  });

  it('answers batch items with the same message as a successful call, in the caller language', async () => {
    const aes = await create('batch-msg', 'AES-128', Usage.Encrypt | Usage.Decrypt);
    for (const lang of ['en', 'zh-CN']) {
      const single = await call(server, api.crypto.random, { token, lang, body: { bytes: 4 } });
      const batch = await call(server, api.crypto.batch, {
        token,
        lang,
        body: {
          operations: [
            { op: 'encrypt', key_id: aes.id, plaintext: b64('a') },
            { op: 'random', bytes: 4 },
          ],
        },
      });
      expect(batch.data.map((r) => [r.code, r.msg])).toEqual([
        [0, single.msg],
        [0, single.msg],
      ]);
      expect(single.msg).toBe(lang === 'en' ? 'Success' : '成功');
    }
  });

  it('names usage bits with the words the list filter takes, and documents every bit', async () => {
    const k = await create('usage-words', 'HMAC-SHA384', Usage.MacGenerate | Usage.MacVerify);
    expect(k).toMatchObject({ usage_mask: 0x180, usages: ['mac', 'mac-verify'] });
    expect(k).not.toHaveProperty('usage');
    for (const usage of k.usages) {
      const listed = await call(server, api.key.list, {
        token,
        query: { page: 1, page_size: 100, usage, name: 'usage-words' },
      });
      expect(
        listed.data.data.map((r) => r.name),
        usage,
      ).toEqual(['usage-words']);
    }
    const none = await call(server, api.key.list, {
      token,
      query: { page: 1, page_size: 100, usage: 'sign', name: 'usage-words' },
    });
    expect(none.data.total).toBe(0);
    const bad = await callUnchecked(server, api.key.list, {
      token,
      query: { page: 1, page_size: 10, usage: 'Sign (0x1)' },
    });
    expect(bad.code).toBe(Code.INVALID);

    const docs = (await server.app.inject({ method: 'GET', url: '/docs/json' })).body;
    for (const bit of USAGE_BITS) {
      expect(docs, bit.word).toContain(`0x${Usage[bit.name].toString(16)} ${bit.word} (${bit.name})`);
    }
  });
});
