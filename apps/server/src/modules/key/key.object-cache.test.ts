import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, Code, Usage, type AlgorithmId } from '@ksp/contracts';
import type { KspServer } from '../../app.js';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { createKeyCache } from './key.cache.js';

// Whether the cache still refers to a key object is seen by asking the collector to free it.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const data = b64('pay 100 to alice');
/** The cache's bound (KEY_CACHE_MS), in the harness clock's seconds, and a little beyond it. */
const PAST_THE_BOUND = 1.1;

/** The algorithms whose private key the cache keeps parsed. */
const signers: AlgorithmId[] = ['EC-P256', 'ED25519', 'RSA-2048'];

describe.each(await engines())('cached private key objects on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started));

  const create = async (name: string, algorithm: AlgorithmId, usage_mask = Usage.Sign | Usage.Verify) => {
    const created = await call(server, api.key.create, { token, body: { name, algorithm, usage_mask } });
    expect(created.code, created.msg).toBe(0);
    return created.data;
  };
  const change = async (def: typeof api.key.disable | typeof api.key.recover, id: string) => {
    const changed = await call(server, def, { token, body: { id } });
    expect(changed.code, changed.msg).toBe(0);
  };
  const sign = (on: KspServer, id: string) =>
    call(on, api.crypto.sign, { token, body: { key_id: id, data } });
  /** Whether `signature` verifies with the public key of `version` (and only that version is tried). */
  const verifies = async (id: string, signature: string, version: number) => {
    const checked = await call(server, api.crypto.verify, {
      token,
      body: { key_id: id, data, signature, version },
    });
    expect(checked.code, checked.msg).toBe(0);
    return checked.data.valid;
  };

  it.each(signers)(
    '%s: a key disabled, rotated or destroyed on this node is not signed with from the cache',
    async (algorithm) => {
      const key = await create(`one-node-${algorithm}`, algorithm);
      // Twice: the second signature comes from the key object the first one left in the cache.
      for (let i = 0; i < 2; i++) expect((await sign(server, key.id)).data.version).toBe(1);

      await change(api.key.disable, key.id);
      expect(await sign(server, key.id)).toMatchObject({
        code: Code.STATE_FORBIDS,
        msg: `Key 'one-node-${algorithm}' is disabled: only keys in use can sign`,
      });
      await change(api.key.recover, key.id);
      expect((await sign(server, key.id)).data.version).toBe(1);

      expect((await call(server, api.key.addVersion, { token, body: { id: key.id } })).data.version).toBe(2);
      const rotated = await sign(server, key.id);
      expect(rotated.data.version).toBe(2);
      expect(await verifies(key.id, rotated.data.signature, 2)).toBe(true);
      expect(await verifies(key.id, rotated.data.signature, 1)).toBe(false);

      await change(api.key.disable, key.id);
      expect((await call(server, api.key.destroy, { token, body: { id: key.id } })).code).toBe(0);
      expect(await sign(server, key.id)).toMatchObject({
        code: Code.STATE_FORBIDS,
        msg: `Key 'one-node-${algorithm}' is destroyed: only keys in use can sign`,
      });
    },
  );

  it('RSA decryption with the cached key object stops when the key is disabled, and follows rotation', async () => {
    const key = await create('one-node-rsa-enc', 'RSA-2048', Usage.Encrypt | Usage.Decrypt);
    const encrypt = async (text: string) => {
      const encrypted = await call(server, api.crypto.encrypt, {
        token,
        body: { key_id: key.id, plaintext: b64(text) },
      });
      expect(encrypted.code, encrypted.msg).toBe(0);
      return encrypted.data.ciphertext;
    };
    const decrypt = (ciphertext: string) => call(server, api.crypto.decrypt, { token, body: { ciphertext } });
    const v1 = await encrypt('first');
    for (let i = 0; i < 2; i++) expect((await decrypt(v1)).data.plaintext).toBe(b64('first'));

    await change(api.key.disable, key.id);
    expect(await decrypt(v1)).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: "Key 'one-node-rsa-enc' is disabled: only keys in use can decrypt",
    });
    await change(api.key.recover, key.id);
    await call(server, api.key.addVersion, { token, body: { id: key.id } });
    const v2 = await encrypt('second');
    expect((await decrypt(v2)).data).toMatchObject({ plaintext: b64('second'), version: 2 });
    expect((await decrypt(v1)).data).toMatchObject({ plaintext: b64('first'), version: 1 });
  });

  it.each(signers)(
    '%s: another node stops signing with its cached key within the bound',
    async (algorithm) => {
      const other = await server.startNode();
      try {
        const key = await create(`two-nodes-${algorithm}`, algorithm);
        expect((await sign(other, key.id)).data.version).toBe(1); // the other node holds the key object

        await call(server, api.key.addVersion, { token, body: { id: key.id } });
        expect((await sign(server, key.id)).data.version).toBe(2);
        // Within the bound the other node may still sign with the version it read...
        expect((await sign(other, key.id)).data.version).toBe(1);
        server.clock.advance(PAST_THE_BOUND);
        // ...past it, with the new version's key, and says so.
        const rotated = await sign(other, key.id);
        expect(rotated.data.version).toBe(2);
        expect(await verifies(key.id, rotated.data.signature, 2)).toBe(true);

        await change(api.key.disable, key.id);
        expect((await sign(server, key.id)).code).toBe(Code.STATE_FORBIDS);
        server.clock.advance(PAST_THE_BOUND);
        expect(await sign(other, key.id)).toMatchObject({
          code: Code.STATE_FORBIDS,
          msg: `Key 'two-nodes-${algorithm}' is disabled: only keys in use can sign`,
        });

        await change(api.key.recover, key.id);
        server.clock.advance(PAST_THE_BOUND);
        expect((await sign(other, key.id)).data.version).toBe(2); // cached again on the other node
        await change(api.key.disable, key.id);
        expect((await call(server, api.key.destroy, { token, body: { id: key.id } })).code).toBe(0);
        server.clock.advance(PAST_THE_BOUND);
        expect(await sign(other, key.id)).toMatchObject({
          code: Code.STATE_FORBIDS,
          msg: `Key 'two-nodes-${algorithm}' is destroyed: only keys in use can sign`,
        });
      } finally {
        await other.close();
      }
    },
  );

  describe('the key cache itself', () => {
    const pkcs8 = () =>
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' });
    let now: number;
    const clock = () => new Date(now);
    let opened: number;
    /** Stands in for the domain KEK: each call is one unwrap of the material. */
    const open = () => {
      opened++;
      return Promise.resolve(pkcs8());
    };
    let cache: ReturnType<typeof createKeyCache>;
    let keyId: string;

    beforeAll(async () => {
      keyId = (await create('cache-unit', 'EC-P256')).id;
    });
    afterEach(() => {
      cache?.close();
      vi.useRealTimers();
    });
    const fresh = () => {
      now = Date.now();
      opened = 0;
      cache = createKeyCache(server.database.db, clock);
      return cache;
    };

    /** Asks the cache for the key object and keeps only a weak reference to it. */
    const weakKey = async () => {
      const key = await cache.privateKey(keyId, 1, open);
      expect(key).toBeInstanceOf(KeyObject);
      return new WeakRef(key as KeyObject);
    };
    /** Whether anything still refers to the object once the collector has run. */
    const stillHeld = async (ref: WeakRef<KeyObject>) => {
      // A weak reference keeps its target until the task that made it ends.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      return ref.deref() !== undefined;
    };

    it('parses the key once per entry and parses it anew after forget, the bound and close', async () => {
      fresh();
      const first = await cache.privateKey(keyId, 1, open);
      expect(first).toBeInstanceOf(KeyObject);
      expect((first as KeyObject).type).toBe('private');
      expect(await cache.privateKey(keyId, 1, open)).toBe(first);
      expect(opened).toBe(1);

      cache.forget();
      const afterForget = await cache.privateKey(keyId, 1, open);
      expect(afterForget).not.toBe(first);
      expect(opened).toBe(2);

      now += 999;
      expect(await cache.privateKey(keyId, 1, open)).toBe(afterForget);
      now += 1;
      const afterBound = await cache.privateKey(keyId, 1, open);
      expect(afterBound).not.toBe(afterForget);
      expect(opened).toBe(3);

      cache.close();
      expect(await cache.privateKey(keyId, 1, open)).not.toBe(afterBound);
      expect(opened).toBe(4);
    });

    it('holds the key object while the entry lives, and nothing of it after forget or close', async () => {
      fresh();
      const held = await weakKey();
      expect(await stillHeld(held)).toBe(true);
      cache.forget();
      expect(await stillHeld(held)).toBe(false);

      const closed = await weakKey();
      cache.close();
      expect(await stillHeld(closed)).toBe(false);
    });

    it('lets the sweeper drop a key object nobody asks for again once its bound is past', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      fresh();
      const idle = await weakKey();
      vi.advanceTimersByTime(1000);
      expect(await stillHeld(idle)).toBe(true); // the sweeper ran, but the bound is not past yet
      now += 1000;
      vi.advanceTimersByTime(1000);
      expect(await stillHeld(idle)).toBe(false);
    });

    it('keeps no key object parsed from material unwrapped while the key changed', async () => {
      fresh();
      let unwrapped!: (material: Buffer) => void;
      const slowOpen = () => {
        opened++;
        return new Promise<Buffer>((resolve) => (unwrapped = resolve));
      };
      const asked = cache.privateKey(keyId, 1, slowOpen);
      await vi.waitFor(() => expect(opened).toBe(1));
      cache.forget(); // a change on this node while the material was being unwrapped
      unwrapped(pkcs8());
      const during = await asked;
      expect(during).toBeInstanceOf(KeyObject);
      const after = await cache.privateKey(keyId, 1, open);
      expect(after).not.toBe(during);
      expect(opened).toBe(2);
    });

    it('reads the key, its version and unwraps the material once for callers that miss together', async () => {
      now = Date.now();
      opened = 0;
      // Counts the cache's reads: the tables each select reads from.
      const selects: string[] = [];
      const counted = server.database.db.withPlugin({
        transformQuery: (args) => {
          const froms = (args.node as { from?: { froms: { table?: { identifier?: { name?: string } } }[] } })
            .from?.froms;
          for (const f of froms ?? []) if (f.table?.identifier?.name) selects.push(f.table.identifier.name);
          return args.node;
        },
        transformResult: (args) => Promise.resolve(args.result),
      });
      cache = createKeyCache(counted, clock);
      const asked = await Promise.all(Array.from({ length: 32 }, () => cache.privateKey(keyId, 1, open)));
      expect(new Set(asked).size).toBe(1);
      expect(asked[0]).toBeInstanceOf(KeyObject);
      expect(selects.sort()).toEqual(['kms_key', 'kms_key_version']);
      expect(opened).toBe(1);

      // In the second half of the entry's life the key and the versions in use are read again
      // in the background; callers keep the cached key object meanwhile.
      now += 600;
      expect(await cache.privateKey(keyId, 1, open)).toBe(asked[0]);
      await vi.waitFor(() => expect(selects).toHaveLength(4));
      expect(selects.slice(2).sort()).toEqual(['kms_key', 'kms_key_version']);
      // The refreshed entry is fresh at the first one's bound, and its version is already read.
      now += 400;
      const again = await Promise.all(Array.from({ length: 8 }, () => cache.privateKey(keyId, 1, open)));
      expect(new Set(again).size).toBe(1);
      expect(selects).toHaveLength(4);
      expect(opened).toBe(2);
    });

    it('answers no key once the material is destroyed, and material that does not parse as bytes', async () => {
      fresh();
      const other = await create('cache-unit-destroyed', 'EC-P256');
      expect(await cache.privateKey(other.id, 1, open)).toBeInstanceOf(KeyObject);
      await change(api.key.disable, other.id);
      expect((await call(server, api.key.destroy, { token, body: { id: other.id } })).code).toBe(0);
      now += 1000; // another node's change: seen here once the bound is past
      expect(await cache.privateKey(other.id, 1, open)).toBeUndefined();

      const junk = Buffer.from('not a PKCS#8 key');
      const bytes = await cache.privateKey(keyId, 1, () => Promise.resolve(Buffer.from(junk)));
      expect(bytes).toEqual(junk);
      // Nothing was kept: the next call unwraps again.
      expect(await cache.privateKey(keyId, 1, open)).toBeInstanceOf(KeyObject);
      expect(opened).toBe(2);
    });
  });
});
