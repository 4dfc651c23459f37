import { describe, expect, it } from 'vitest';
import { wycheproof, type WycheproofTest } from '../../test/wycheproof.js';
import { CryptoError } from './crypto-error.js';
import {
  aesGcmDecrypt,
  aesGcmEncrypt,
  aesKeyUnwrap,
  aesKeyUnwrapPadded,
  aesKeyWrap,
  aesKeyWrapPadded,
} from './symmetric.js';

/**
 * The Wycheproof files of the primitives the HTTP API cannot reach with a vector's own inputs
 * (src/test/fixtures/wycheproof/README.md): KSP's AES-GCM ciphertexts carry their own IV and
 * bind their header into the AAD (docs/ciphertext.md), and crypto/wrap uses a key KSP holds.
 * So the same vector files run here, against the functions the API calls.
 *
 * Decisions: KSP seals with 96-bit IVs and 128-bit tags only. Vectors of other IV or tag sizes
 * (valid under GCM in general) are refused by the primitive as invalid input, never answered
 * with a wrong result; every other valid vector decrypts (and encrypts back to the same bytes),
 * every invalid one fails authentication or is refused.
 */

const hex = (value: unknown) => Buffer.from(String(value), 'hex');

/** Runs `work`: 'ok' with its result, or the code of the CryptoError it threw. */
function attempt<T>(work: () => T): { ok: T } | { refused: string } {
  try {
    return { ok: work() };
  } catch (err) {
    if (err instanceof CryptoError) return { refused: err.code };
    throw err;
  }
}

const describeTest = (file: string, t: WycheproofTest) =>
  `${file} #${t.tcId} (${t.result}, ${t.flags.join(' ')})`;

describe('Wycheproof vectors at the primitive level', () => {
  it('AES-GCM (aes_gcm_test): 96-bit IVs and 128-bit tags run in both directions', () => {
    const file = wycheproof('aes_gcm_test');
    const wrong: string[] = [];
    let ran = 0;
    for (const group of file.testGroups) {
      const supported = group.ivSize === 96 && group.tagSize === 128;
      for (const t of group.tests) {
        ran++;
        const key = hex(t.key);
        const sealed = { iv: hex(t.iv), ciphertext: hex(t.ct), tag: hex(t.tag) };
        const aad = hex(t.aad);
        const opened = attempt(() => aesGcmDecrypt(key, sealed, aad));
        if (!supported) {
          if (!('refused' in opened) || opened.refused !== 'invalid-input')
            wrong.push(describeTest('gcm', t));
          continue;
        }
        if (t.result === 'valid') {
          const again = aesGcmEncrypt(key, hex(t.msg), { iv: hex(t.iv), aad });
          const fine =
            'ok' in opened &&
            opened.ok.equals(hex(t.msg)) &&
            again.ciphertext.equals(hex(t.ct)) &&
            again.tag.equals(hex(t.tag));
          if (!fine) wrong.push(describeTest('gcm', t));
        } else if ('ok' in opened) wrong.push(describeTest('gcm', t));
      }
    }
    expect(ran).toBe(file.numberOfTests);
    expect(wrong).toEqual([]);
  });

  it.each([
    ['aes_wrap_test', aesKeyWrap, aesKeyUnwrap],
    ['aes_kwp_test', aesKeyWrapPadded, aesKeyUnwrapPadded],
  ] as const)('AES key wrap (%s): valid vectors wrap and unwrap, invalid ones fail', (name, wrap, unwrap) => {
    const file = wycheproof(name);
    const wrong: string[] = [];
    let ran = 0;
    for (const group of file.testGroups) {
      for (const t of group.tests) {
        ran++;
        const kek = hex(t.key);
        const opened = attempt(() => unwrap(kek, hex(t.ct)));
        if (t.result === 'valid') {
          const fine =
            'ok' in opened && opened.ok.equals(hex(t.msg)) && wrap(kek, hex(t.msg)).equals(hex(t.ct));
          if (!fine) wrong.push(describeTest(name, t));
        } else if ('ok' in opened) wrong.push(describeTest(name, t));
      }
    }
    expect(ran).toBe(file.numberOfTests);
    expect(wrong).toEqual([]);
  });
});
