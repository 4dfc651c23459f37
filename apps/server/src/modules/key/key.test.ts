import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  privateDecrypt,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage, type AlgorithmId } from '@ksp/contracts';
import { aesKeyUnwrapPadded } from '../../platform/crypto/symmetric.js';
import { call, domainWithAdmin, engines, login, type TestServer } from '../../test/harness.js';
import { auditRecords, signedInServer } from '../../test/fixtures.js';
import { usageFor } from './test/usage.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe.each(await engines())('keys and the crypto API on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let rsa: { publicKey: KeyObject; privateKey: KeyObject };

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  });

  const create = (name: string, algorithm: AlgorithmId, extra: Record<string, unknown> = {}) =>
    call(server, api.key.create, {
      token,
      body: { name, algorithm, usage_mask: usageFor(algorithm), ...extra },
    });
  const spki = () => (rsa.publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');
  const rsaUnwrap = (b: string) =>
    privateDecrypt(
      { key: rsa.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(b, 'base64'),
    );

  it('walks the lifecycle: inactive, in use, disabled, recovered, rotated, destroyed, deleted', async () => {
    const k = await create('payments', 'AES-256', { state: 'pre-active', deletable: true });
    expect(k.data.state_label).toBe('inactive');
    const refused = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: k.data.id, plaintext: b64('x') },
    });
    expect(refused).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'payments' is inactive: only keys in use can encrypt",
    });
    expect((await call(server, api.key.activate, { token, body: { id: k.data.id } })).data.state_label).toBe(
      'in-use',
    );
    const v1 = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: k.data.id, plaintext: b64('v1 secret') },
    });
    expect(v1.data.version).toBe(1);

    const rotated = await call(server, api.key.addVersion, { token, body: { id: k.data.id } });
    expect(rotated.data.version).toBe(2);
    const v2 = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: k.data.id, plaintext: b64('v2 secret') },
    });
    expect(v2.data.version).toBe(2);
    const old = await call(server, api.crypto.decrypt, { token, body: { ciphertext: v1.data.ciphertext } });
    expect(old.data).toMatchObject({ plaintext: b64('v1 secret'), version: 1 });
    const versions = await call(server, api.key.versions, { token, query: { id: k.data.id } });
    expect(versions.data.map((v) => v.version)).toEqual([2, 1]);
    expect(versions.data[0]?.kcv).toMatch(/^[0-9A-F]{6}$/);

    const disabled = await call(server, api.key.disable, {
      token,
      body: { id: k.data.id, reason: 'superseded', message: 'replaced by payments-2' },
    });
    expect(disabled.data).toMatchObject({
      state: 'deactivated',
      state_label: 'disabled',
      revocation_reason: 'superseded',
    });
    expect(
      (await call(server, api.crypto.decrypt, { token, body: { ciphertext: v2.data.ciphertext } })).code,
    ).toBe(Code.STATE_FORBIDS);
    expect((await call(server, api.key.recover, { token, body: { id: k.data.id } })).data.state).toBe(
      'active',
    );
    expect(
      (await call(server, api.crypto.decrypt, { token, body: { ciphertext: v2.data.ciphertext } })).data
        .plaintext,
    ).toBe(b64('v2 secret'));

    const destroyActive = await call(server, api.key.destroy, { token, body: { id: k.data.id } });
    expect(destroyActive).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'payments' is in use: disable it before destroying it",
    });
    await call(server, api.key.disable, { token, body: { id: k.data.id } });
    const destroyed = await call(server, api.key.destroy, { token, body: { id: k.data.id } });
    expect(destroyed.data).toMatchObject({ state: 'destroyed', state_label: 'destroyed' });
    const rows = await server.database.db
      .selectFrom('kms_key_version')
      .select('material_wrapped')
      .where('key_id', '=', k.data.id)
      .execute();
    expect(rows.every((r) => r.material_wrapped === null)).toBe(true);
    expect((await call(server, api.key.recover, { token, body: { id: k.data.id } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    const listed = await call(server, api.key.list, {
      token,
      query: { page: 1, page_size: 100, name: 'payments' },
    });
    expect(listed.data.total).toBe(0);
    const destroyedList = await call(server, api.key.list, {
      token,
      query: { page: 1, page_size: 100, state: 'destroyed', name: 'payments' },
    });
    expect(destroyedList.data.data.map((r) => r.name)).toEqual(['payments']);
    expect((await call(server, api.key.delete, { token, body: { ids: [k.data.id] } })).data).toEqual({
      deleted: 1,
    });
    const trail = await server.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', 'payments')
      .orderBy('at')
      .execute();
    expect(trail.map((t) => t.action)).toEqual(
      expect.arrayContaining([
        'key.create',
        'key.activate',
        'crypto.encrypt',
        'key.add-version',
        'key.disable',
        'key.recover',
        'key.destroy',
        'key.delete',
      ]),
    );
  });

  it('never lets a compromised key back, keeps undeletable keys, refuses wrong usages', async () => {
    const k = await create('leaked', 'AES-256', { deletable: false });
    const compromised = await call(server, api.key.disable, {
      token,
      body: { id: k.data.id, reason: 'key-compromise' },
    });
    expect(compromised.data.state).toBe('compromised');
    expect((await call(server, api.key.recover, { token, body: { id: k.data.id } })).msg).toBe(
      "Key 'leaked' is compromised and can never be used again",
    );
    expect((await call(server, api.key.delete, { token, body: { ids: [k.data.id] } })).msg).toBe(
      "Key 'leaked' does not allow deletion",
    );
    expect((await call(server, api.key.destroy, { token, body: { id: k.data.id } })).data.state).toBe(
      'destroyed-compromised',
    );
    const badUsage = await call(server, api.key.create, {
      token,
      body: { name: 'ec-enc', algorithm: 'EC-P256', usage_mask: Usage.Encrypt },
    });
    expect(badUsage).toMatchObject({
      code: Code.INVALID,
      msg: 'usage_mask: EC-P256 keys cannot be used for Encrypt (0x4); allowed: Sign (0x1), Verify (0x2)',
    });
    const both = await call(server, api.key.create, {
      token,
      body: { name: 'rsa-both', algorithm: 'RSA-2048', usage_mask: Usage.Sign | Usage.Encrypt },
    });
    expect(both.code).toBe(Code.INVALID);
    const cte = await call(server, api.key.create, {
      token,
      body: {
        name: 'cte-rsa',
        algorithm: 'RSA-2048',
        usage_mask: Usage.Sign,
        cte: { versioned: true, persistent_on_client: false, encryption_mode: 'CBC' },
      },
    });
    expect(cte.code).toBe(Code.INVALID);
    const signOnly = await create('signer', 'EC-P256');
    const noEncrypt = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: signOnly.data.id, plaintext: b64('x') },
    });
    expect(noEncrypt.code).toBe(Code.STATE_FORBIDS);
    const dup = await create('signer', 'EC-P256');
    expect(dup.code).toBe(Code.CONFLICT);
  });

  it('exports only exportable keys, wrapped so that raw material never travels in clear', async () => {
    const locked = await create('no-export', 'AES-256');
    expect(
      (await call(server, api.key.export, { token, body: { id: locked.data.id, wrap_public_key: spki() } }))
        .code,
    ).toBe(Code.STATE_FORBIDS);
    const k = await create('exportable', 'AES-256', { exportable: true });
    const noWrap = await call(server, api.key.export, { token, body: { id: k.data.id } });
    expect(noWrap.code).toBe(Code.INVALID);
    const exported = await call(server, api.key.export, {
      token,
      body: { id: k.data.id, wrap_public_key: spki() },
    });
    expect(exported.data).toMatchObject({ wrapping: 'RSA-OAEP-SHA256', format: 'raw', wrapped_kek: null });
    const raw = rsaUnwrap(exported.data.material);
    expect(raw).toHaveLength(32);
    // The same key bytes are nowhere in the database.
    if (engine === 'sqlite') {
      const file = Buffer.concat([
        readFileSync(join(server.dataDir, 'ksp.sqlite')),
        readFileSync(join(server.dataDir, 'ksp.sqlite-wal')),
      ]);
      expect(file.includes(raw)).toBe(false);
      expect(file.includes(Buffer.from(raw.toString('base64')))).toBe(false);
      expect(file.includes(Buffer.from(raw.toString('hex')))).toBe(false);
    }
    // An exported key decrypts what the server encrypted: import it into another key and compare.
    const imported = await call(server, api.key.import, {
      token,
      body: {
        name: 'imported',
        algorithm: 'AES-256',
        usage_mask: Usage.Encrypt | Usage.Decrypt,
        content: raw.toString('base64'),
      },
    });
    expect(imported.data.kcv).toBe(k.data.kcv);
    const short = await call(server, api.key.import, {
      token,
      body: {
        name: 'short',
        algorithm: 'AES-256',
        usage_mask: Usage.Encrypt,
        content: raw.subarray(0, 16).toString('base64'),
      },
    });
    expect(short).toMatchObject({ code: Code.INVALID, msg: 'content: AES-256 needs 32 bytes, got 16' });
    const notB64 = await call(server, api.key.import, {
      token,
      body: { name: 'bad', algorithm: 'AES-256', usage_mask: Usage.Encrypt, content: 'not base64!' },
    });
    expect(notB64).toMatchObject({ code: Code.INVALID, msg: 'content: must be Base64' });

    const pair = await create('rsa-exportable', 'RSA-3072', { exportable: true });
    const hybrid = await call(server, api.key.export, {
      token,
      body: { id: pair.data.id, wrap_public_key: spki() },
    });
    expect(hybrid.data).toMatchObject({ wrapping: 'RSA-OAEP-SHA256+AES-KWP', format: 'pkcs8' });
    const pkcs8 = aesKeyUnwrapPadded(
      rsaUnwrap(hybrid.data.wrapped_kek!),
      Buffer.from(hybrid.data.material, 'base64'),
    );
    const pubFromExport = createPublicKey(
      createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }),
    ).export({
      type: 'spki',
      format: 'der',
    });
    const pubExport = await call(server, api.key.export, { token, body: { id: pair.data.linked_key_id! } });
    expect(pubExport.data).toMatchObject({
      wrapping: 'none',
      format: 'spki',
      material: pubFromExport.toString('base64'),
    });
    const sig = await call(server, api.crypto.sign, {
      token,
      body: { key_id: pair.data.id, data: b64('doc') },
    });
    const pubKey = createPublicKey({ key: pubFromExport, format: 'der', type: 'spki' });
    expect(
      nodeVerify(
        'sha256',
        Buffer.from('doc'),
        { key: pubKey, padding: constants.RSA_PKCS1_PSS_PADDING },
        Buffer.from(sig.data.signature, 'base64'),
      ),
    ).toBe(true);
    const mlPair = await create('pq-pair', 'ML-DSA-44');
    const pqPub = await call(server, api.key.export, { token, body: { id: mlPair.data.linked_key_id! } });
    expect(pqPub.data).toMatchObject({ format: 'standard', wrapping: 'none' });
    expect(Buffer.from(pqPub.data.material, 'base64')).toHaveLength(1312);
    const flags = await call(server, api.key.update, {
      token,
      body: { id: mlPair.data.id, deletable: false },
    });
    expect(flags.data.deletable).toBe(false);
    expect(
      (await call(server, api.key.detail, { token, query: { id: mlPair.data.linked_key_id! } })).data
        .deletable,
    ).toBe(false);
    const sticky = await call(server, api.key.update, { token, body: { id: k.data.id, exportable: false } });
    expect(sticky.code).toBe(Code.STATE_FORBIDS);
  });

  it('clones, wraps, derives data keys, answers batches, and keeps domains apart', async () => {
    const k = await create('kek', 'AES-256');
    const clone = await call(server, api.key.clone, { token, body: { id: k.data.id, new_name: 'kek-copy' } });
    expect(clone.data.kcv).toBe(k.data.kcv);
    const dk = await call(server, api.crypto.dataKey, { token, body: { key_id: k.data.id, bytes: 32 } });
    expect(Buffer.from(dk.data.plaintext, 'base64')).toHaveLength(32);
    expect(
      (await call(server, api.crypto.decrypt, { token, body: { ciphertext: dk.data.ciphertext } })).data
        .plaintext,
    ).toBe(dk.data.plaintext);
    const wrapped = await call(server, api.crypto.wrap, {
      token,
      body: { key_id: k.data.id, key_material: dk.data.plaintext },
    });
    expect(
      (
        await call(server, api.crypto.unwrap, {
          token,
          body: { key_id: clone.data.id, wrapped: wrapped.data.wrapped },
        })
      ).data.key_material,
    ).toBe(dk.data.plaintext);
    const rnd = await call(server, api.crypto.random, { token, body: { bytes: 48 } });
    expect(Buffer.from(rnd.data.random, 'base64')).toHaveLength(48);

    const batch = await call(server, api.crypto.batch, {
      token,
      body: {
        operations: [
          { op: 'encrypt', key_id: k.data.id, plaintext: b64('a') },
          { op: 'sign', key_id: k.data.id, data: b64('a') },
          { op: 'random', bytes: 8 },
        ],
      },
    });
    expect(batch.data.map((r) => r.code)).toEqual([0, Code.STATE_FORBIDS, 0]);
    expect(batch.data[1]?.msg).toBe(
      "Key 'kek' is not allowed to sign (usage: Encrypt (0x4), Decrypt (0x8), WrapKey (0x10), UnwrapKey (0x20))",
    );

    const other = await call(server, api.domain.create, { token, body: { name: 'other-domain' } });
    expect(other.code).toBe(0);
    const me = (await call(server, api.user.info, { token })).data.userinfo.id;
    await call(server, api.user.domainAddUser, { token, body: { domain_id: other.data.id, user_ids: [me] } });
    const switched = await call(server, api.user.switchDomain, {
      token,
      body: { domain_name: 'other-domain' },
    });
    token = switched.data.token;
    expect(
      (await call(server, api.crypto.encrypt, { token, body: { key_id: k.data.id, plaintext: b64('x') } }))
        .code,
    ).toBe(Code.NOT_FOUND);
    expect((await call(server, api.key.list, { token, query: { page: 1, page_size: 100 } })).data.total).toBe(
      0,
    );
    token = await login(server, 'admin', 'Admin-Pass-1');
  });

  it('commits concurrent creations and operations together, each answered only once written', async () => {
    // Twelve creations at once, two of them with the same name: they share a commit, and
    // only the latecomer of the two is refused.
    const names = Array.from({ length: 11 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all([...names, 'burst-3'].map((n) => create(n, 'AES-256')));
    expect(answers.filter((a) => a.code === 0)).toHaveLength(11);
    const refused = answers.filter((a) => a.code !== 0);
    expect(refused.map((a) => [a.code, a.msg])).toEqual([[Code.CONFLICT, "Key 'burst-3' already exists"]]);
    const rows = await server.database.db
      .selectFrom('kms_key')
      .select(['id', 'name'])
      .where('name', 'like', 'burst-%')
      .execute();
    expect(rows.map((r) => r.name).sort()).toEqual([...names].sort());
    const created = (await auditRecords(server, 'key.create')).filter((a) => a.target.startsWith('burst-'));
    expect(created).toHaveLength(11);

    // The names asked at once are looked up together, domain by domain: a name taken in this
    // domain is refused here and free in another, in the same burst.
    const branch = await domainWithAdmin(server, token, {
      domain: 'burst-branch',
      username: 'burst-admin',
      password: 'Burst-Admin-Pass-1',
    });
    const mixed = await Promise.all([
      create('burst-0', 'AES-256'),
      create('burst-fresh', 'AES-256'),
      call(server, api.key.create, {
        token: branch.token,
        body: { name: 'burst-0', algorithm: 'AES-256', usage_mask: usageFor('AES-256') },
      }),
      call(server, api.key.create, {
        token: branch.token,
        body: { name: 'burst-1', algorithm: 'AES-256', usage_mask: usageFor('AES-256') },
      }),
    ]);
    expect(mixed.map((a) => a.code)).toEqual([Code.CONFLICT, 0, 0, 0]);
    expect(mixed[0].msg).toBe("Key 'burst-0' already exists");
    const inBranch = await call(server, api.key.list, {
      token: branch.token,
      query: { page: 1, page_size: 10 },
    });
    expect(inBranch.data.data.map((k) => k.name).sort()).toEqual(['burst-0', 'burst-1']);

    // Thirty encryptions at once: every one is counted and audited before it is answered;
    // identical ones committed together share a record that says how many it stands for.
    const key = answers[0]!.data;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(server, api.crypto.encrypt, { token, body: { key_id: key.id, plaintext: b64(`m${i}`) } }),
      ),
    );
    expect(results.every((r) => r.code === 0)).toBe(true);
    const detail = await call(server, api.key.detail, { token, query: { id: key.id } });
    expect(detail.data.operations).toBe(30);
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select((eb) => [
        eb.fn.sum<string | number>('count').as('operations'),
        eb.fn.countAll<string | number>().as('n'),
      ])
      .where('action', '=', 'crypto.encrypt')
      .where('target', '=', key.name)
      .executeTakeFirstOrThrow();
    expect(Number(audited.operations)).toBe(30);
    expect(Number(audited.n)).toBeLessThan(30);

    // The key's trail: its creation and its thirty operations, newest first, by pages.
    const records = Number(audited.n);
    const trail = await call(server, api.key.audit, { token, query: { id: key.id, page: 1, page_size: 50 } });
    expect(trail.data.total).toBe(records + 1);
    expect(trail.data.data.map((r) => r.action)).toEqual([
      ...Array.from({ length: records }, () => 'crypto.encrypt'),
      'key.create',
    ]);
    expect(trail.data.data.reduce((n, r) => n + r.count, 0)).toBe(31);
    const paged = await call(server, api.key.audit, {
      token,
      query: { id: key.id, page: records + 1, page_size: 1 },
    });
    expect(paged.data.data.map((r) => r.action)).toEqual(['key.create']);
    // One at a time, each operation has a record of its own.
    for (let i = 0; i < 3; i++) {
      const one = await call(server, api.crypto.encrypt, {
        token,
        body: { key_id: key.id, plaintext: b64('x') },
      });
      expect(one.code).toBe(0);
    }
    const latest = await call(server, api.key.audit, { token, query: { id: key.id, page: 1, page_size: 3 } });
    expect(latest.data.data.map((r) => [r.action, r.count])).toEqual(Array(3).fill(['crypto.encrypt', 1]));

    // A pair's halves share one trail; a later key of the same name starts its own.
    const pair = await create('burst-pair', 'EC-P256');
    const signed = await call(server, api.crypto.sign, {
      token,
      body: { key_id: pair.data.id, data: b64('d') },
    });
    await call(server, api.crypto.verify, {
      token,
      body: { key_id: pair.data.linked_key_id!, data: b64('d'), signature: signed.data.signature },
    });
    const pubTrail = await call(server, api.key.audit, {
      token,
      query: { id: pair.data.linked_key_id!, page: 1, page_size: 10 },
    });
    expect(pubTrail.data.data.map((r) => r.action)).toEqual(['crypto.verify', 'crypto.sign', 'key.create']);
    const victim = answers[1]!.data;
    expect((await call(server, api.key.disable, { token, body: { id: victim.id } })).code).toBe(0);
    expect((await call(server, api.key.delete, { token, body: { ids: [victim.id] } })).code).toBe(0);
    const again = await create(victim.name, 'AES-256');
    const fresh = await call(server, api.key.audit, {
      token,
      query: { id: again.data.id, page: 1, page_size: 10 },
    });
    expect(fresh.data.data.map((r) => r.action)).toEqual(['key.create']);
  });

  it('applies a key change at once on its node and within a second on another node', async () => {
    const other = await server.startNode();
    try {
      const k = await create('two-nodes', 'AES-256');
      const encrypt = (on: typeof other | TestServer) =>
        call(on, api.crypto.encrypt, { token, body: { key_id: k.data.id, plaintext: b64('n') } });
      expect((await encrypt(other)).code).toBe(0); // the other node now holds the key's row
      const disabled = await call(server, api.key.disable, {
        token,
        body: { id: k.data.id, reason: 'unspecified', message: 'test' },
      });
      expect(disabled.code).toBe(0);
      expect((await encrypt(server)).code).toBe(Code.STATE_FORBIDS);
      server.clock.advance(0.9);
      expect((await encrypt(other)).code).toBe(0); // the other node still uses the row it read
      server.clock.advance(0.2); // past the cache's second
      expect((await encrypt(other)).code).toBe(Code.STATE_FORBIDS);
    } finally {
      await other.close();
    }
  });
});
