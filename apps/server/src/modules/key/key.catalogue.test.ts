import { describe, expect, it } from 'vitest';
import { ALGORITHM_IDS, algorithmInfo, api, Code, type AlgorithmId } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { usageFor } from './test/usage.js';

// Each algorithm of the catalogue generated, stored and used through the API: cryptography,
// minutes of it in JavaScript, on one engine (src/test/engine-rule.ts); the key rows themselves
// are listed, filtered and changed on both engines in key.test.ts.

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** SLH-DSA "s" sets sign in seconds in JS; one of them is exercised, the others created only. */
const slowSigners = new Set<AlgorithmId>([
  'SLH-DSA-SHA2-192S',
  'SLH-DSA-SHA2-256S',
  'SLH-DSA-SHAKE-128S',
  'SLH-DSA-SHAKE-192S',
  'SLH-DSA-SHAKE-256S',
]);

describe.each(await engines())('the key catalogue on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started));

  const create = (name: string, algorithm: AlgorithmId) =>
    call(server, api.key.create, {
      token,
      body: { name, algorithm, usage_mask: usageFor(algorithm) },
    });

  it('generates and uses every algorithm of the catalogue', async () => {
    const used: string[] = [];
    for (const alg of ALGORITHM_IDS) {
      const created = await create(`k-${alg}`, alg);
      expect(created.code, `${alg}: ${created.msg}`).toBe(0);
      const info = algorithmInfo(alg);
      expect(created.data).toMatchObject({
        algorithm: alg,
        state: 'active',
        state_label: 'in-use',
        version: 1,
        owner: 'admin',
      });
      expect(created.data.object_type).toBe(info.kind === 'symmetric' ? 'symmetric' : 'private');
      if (info.pqc)
        expect(created.data).toMatchObject({
          pqc_parameter_set: info.pqc.parameterSet,
          security_level: info.pqc.category,
        });
      const id = created.data.id;
      const data = b64(`message for ${alg}`);
      if (info.family === 'AES' || info.family === 'SM4') {
        const enc = await call(server, api.crypto.encrypt, {
          token,
          body: { key_id: id, plaintext: data, aad: b64('ctx') },
        });
        const dec = await call(server, api.crypto.decrypt, {
          token,
          body: { ciphertext: enc.data.ciphertext, aad: b64('ctx') },
        });
        expect(dec.data.plaintext, alg).toBe(data);
        const wrongAad = await call(server, api.crypto.decrypt, {
          token,
          body: { ciphertext: enc.data.ciphertext, aad: b64('other') },
        });
        expect(wrongAad.code).toBe(Code.INVALID);
      } else if (info.family === 'HMAC') {
        const mac = await call(server, api.crypto.mac, { token, body: { key_id: id, data } });
        expect(
          (await call(server, api.crypto.macVerify, { token, body: { key_id: id, data, mac: mac.data.mac } }))
            .data.valid,
        ).toBe(true);
        expect(
          (
            await call(server, api.crypto.macVerify, {
              token,
              body: { key_id: id, data: b64('x'), mac: mac.data.mac },
            })
          ).data.valid,
        ).toBe(false);
      } else if (info.family === 'ML-KEM') {
        const enc = await call(server, api.crypto.encapsulate, {
          token,
          body: { key_id: created.data.linked_key_id! },
        });
        const dec = await call(server, api.crypto.decapsulate, {
          token,
          body: { key_id: id, ciphertext: enc.data.ciphertext },
        });
        expect(dec.data.shared_secret, alg).toBe(enc.data.shared_secret);
      } else if (!slowSigners.has(alg)) {
        const sig = await call(server, api.crypto.sign, { token, body: { key_id: id, data } });
        expect(sig.code, `${alg}: ${sig.msg}`).toBe(0);
        const pub = created.data.linked_key_id!;
        expect(
          (
            await call(server, api.crypto.verify, {
              token,
              body: { key_id: pub, data, signature: sig.data.signature },
            })
          ).data.valid,
          alg,
        ).toBe(true);
        expect(
          (
            await call(server, api.crypto.verify, {
              token,
              body: { key_id: pub, data: b64('tampered'), signature: sig.data.signature },
            })
          ).data.valid,
        ).toBe(false);
      }
      used.push(alg);
    }
    expect(used).toEqual([...ALGORITHM_IDS]);
  }, 180_000); // SLH-DSA key generation takes seconds in JavaScript
});
