import { describe, expect, it } from 'vitest';
import {
  type CiphertextEnvelope,
  type CiphertextHeader,
  encodeCiphertext,
  envelopeAad,
  openEnvelope,
  parseCiphertext,
  sealEnvelope,
} from './ciphertext.js';
import { CryptoError } from './crypto-error.js';
import { symmetricEncrypt } from './symmetric.js';

const KEY_ID = '3f2a9c4e-8b1d-4f6a-9e2c-7d5b1a0c3e84';

const envelope = (overrides: Partial<CiphertextEnvelope> = {}): CiphertextEnvelope => ({
  keyId: KEY_ID,
  keyVersion: 7,
  algorithm: 'AES-256',
  iv: Buffer.alloc(12, 0x11),
  tag: Buffer.alloc(16, 0x22),
  ciphertext: Buffer.from('cipher'),
  ...overrides,
});

const bytesOf = (text: string) => Buffer.from(text, 'base64');
const textOf = (bytes: Buffer) => bytes.toString('base64');

function rejects(text: string, message: RegExp): void {
  let error: unknown;
  try {
    parseCiphertext(text);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(CryptoError);
  expect((error as CryptoError).code).toBe('invalid-input');
  expect((error as CryptoError).message).toMatch(message);
}

describe('ciphertext layout', () => {
  it('writes the documented version-1 layout as padded standard Base64', () => {
    const text = encodeCiphertext(envelope());
    expect(bytesOf(text).toString('hex')).toBe(
      '01' + // format version
        '3f2a9c4e8b1d4f6a9e2c7d5b1a0c3e84' + // key id
        '00000007' + // key version
        '03' + // algorithm code of AES-256
        '0c' +
        '11'.repeat(12) + // IV
        '10' +
        '22'.repeat(16) + // tag
        Buffer.from('cipher').toString('hex'),
    );
    expect(text).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  });

  it('parses back every field, the key version included', () => {
    const original = envelope({ keyVersion: 0xfffffffe, keyId: KEY_ID.toUpperCase() });
    const parsed = parseCiphertext(encodeCiphertext(original));
    expect(parsed).toEqual({ ...original, keyId: KEY_ID });
  });

  it('carries RSA and SM2 ciphertexts with no IV or tag', () => {
    const rsa = envelope({
      algorithm: 'RSA-3072',
      iv: Buffer.alloc(0),
      tag: Buffer.alloc(0),
      ciphertext: Buffer.alloc(384, 1),
    });
    expect(parseCiphertext(encodeCiphertext(rsa))).toEqual(rsa);
    const sm2 = envelope({
      algorithm: 'SM2',
      iv: Buffer.alloc(0),
      tag: Buffer.alloc(0),
      ciphertext: Buffer.concat([Buffer.from([4]), Buffer.alloc(100, 2)]),
    });
    expect(parseCiphertext(encodeCiphertext(sm2))).toEqual(sm2);
  });

  it('refuses to encode what it could not parse', () => {
    expect(() => encodeCiphertext(envelope({ keyId: 'not-a-uuid' }))).toThrow(/is not a UUID/);
    for (const keyVersion of [-1, 1.5, 2 ** 32]) {
      expect(() => encodeCiphertext(envelope({ keyVersion }))).toThrow(/Key version must be an integer/);
    }
    expect(() => encodeCiphertext(envelope({ iv: Buffer.alloc(16) }))).toThrow(/IV is 12 bytes/);
    expect(() => encodeCiphertext(envelope({ tag: Buffer.alloc(8) }))).toThrow(/tag is 16 bytes/);
    expect(() => encodeCiphertext(envelope({ algorithm: 'ED25519' }))).toThrow(/do not produce ciphertexts/);
    expect(() =>
      encodeCiphertext(envelope({ algorithm: 'RSA-2048', iv: Buffer.alloc(0), tag: Buffer.alloc(0) })),
    ).toThrow(/RSA-2048 ciphertext is 256 bytes/);
  });
});

describe('malformed ciphertexts', () => {
  const good = bytesOf(encodeCiphertext(envelope()));
  const patched = (offset: number, value: number) => {
    const copy = Buffer.from(good);
    copy[offset] = value;
    return textOf(copy);
  };

  it('are refused with a reason', () => {
    rejects('', /empty/);
    rejects('AQID!!==', /not Base64/);
    rejects(textOf(good).replace(/=+$/, '') + 'A', /not Base64/);
    rejects(textOf(good).replace(/=+$/, ''), /not Base64/);
    rejects('AR==', /not canonical Base64/);
    rejects(textOf(good.subarray(0, 20)), /too short \(20 bytes\)/);
    rejects(patched(0, 2), /unknown format version 2 \(this server reads 1\)/);
    rejects(patched(21, 200), /unknown algorithm code 200/);
    rejects(patched(21, 36), /ED25519 keys do not produce ciphertexts/);
    rejects(patched(22, 16), /AES-256 needs a 12-byte IV, got 16/);
    rejects(textOf(good.subarray(0, 30)), /truncated IV/);
    rejects(textOf(good.subarray(0, 35)), /truncated before the tag length/);
    rejects(textOf(good.subarray(0, 40)), /truncated tag/);
    rejects(patched(35, 12), /needs a 16-byte tag, got 12/);
  });

  it('check the ciphertext size of RSA and the point prefix of SM2', () => {
    const rsa = bytesOf(
      encodeCiphertext(
        envelope({
          algorithm: 'RSA-2048',
          iv: Buffer.alloc(0),
          tag: Buffer.alloc(0),
          ciphertext: Buffer.alloc(256),
        }),
      ),
    );
    rejects(textOf(rsa.subarray(0, rsa.length - 1)), /RSA-2048 ciphertext is 256 bytes, got 255/);
    const sm2 = bytesOf(
      encodeCiphertext(
        envelope({
          algorithm: 'SM2',
          iv: Buffer.alloc(0),
          tag: Buffer.alloc(0),
          ciphertext: Buffer.alloc(98, 4),
        }),
      ),
    );
    const noPrefix = Buffer.from(sm2);
    noPrefix[24] = 0x02;
    rejects(textOf(noPrefix), /SM2 ciphertext is C1/);
  });
});

describe('sealed envelopes', () => {
  const keys: Record<string, Buffer> = {
    'AES-128': Buffer.alloc(16, 1),
    'AES-192': Buffer.alloc(24, 2),
    'AES-256': Buffer.alloc(32, 3),
    SM4: Buffer.alloc(16, 4),
  };

  it.each(['AES-128', 'AES-192', 'AES-256', 'SM4'] as const)(
    '%s: decrypts from the string alone, the key looked up by the id and version inside',
    (algorithm) => {
      const key = keys[algorithm] ?? Buffer.alloc(0);
      const text = sealEnvelope({
        keyId: KEY_ID,
        keyVersion: 3,
        algorithm,
        key,
        plaintext: Buffer.from('card 4111'),
        aad: Buffer.from('tenant-a'),
      });
      const seen: CiphertextHeader[] = [];
      const opened = openEnvelope(
        text,
        (header) => {
          seen.push(header);
          return key;
        },
        Buffer.from('tenant-a'),
      );
      expect(opened).toEqual({
        keyId: KEY_ID,
        keyVersion: 3,
        algorithm,
        plaintext: Buffer.from('card 4111'),
      });
      expect(seen).toEqual([{ keyId: KEY_ID, keyVersion: 3, algorithm }]);
      expect(() => openEnvelope(text, () => key, Buffer.from('tenant-b'))).toThrow(/authentication failed/);
      expect(() => openEnvelope(text, () => key)).toThrow(/authentication failed/);
    },
  );

  it('binds the header: the same key under an edited version number fails', () => {
    const key = keys['AES-256'] ?? Buffer.alloc(0);
    const text = sealEnvelope({
      keyId: KEY_ID,
      keyVersion: 1,
      algorithm: 'AES-256',
      key,
      plaintext: Buffer.from('x'),
    });
    const edited = bytesOf(text);
    edited[20] = 2; // key version 1 -> 2
    expect(() => openEnvelope(textOf(edited), () => key)).toThrow(/authentication failed/);
    // Without the header in the AAD the same bytes would have opened.
    const sealed = symmetricEncrypt('AES-256', key, Buffer.from('x'));
    expect(() => openEnvelope(encodeCiphertext({ ...envelope(), ...sealed }), () => key)).toThrow(
      /authentication failed/,
    );
    expect(envelopeAad({ keyId: KEY_ID, keyVersion: 1, algorithm: 'AES-256' })).toEqual(
      bytesOf(text).subarray(0, 22),
    );
  });

  it('refuses to open an RSA or SM2 ciphertext as an envelope', () => {
    const rsa = encodeCiphertext(
      envelope({
        algorithm: 'RSA-2048',
        iv: Buffer.alloc(0),
        tag: Buffer.alloc(0),
        ciphertext: Buffer.alloc(256),
      }),
    );
    expect(() => openEnvelope(rsa, () => Buffer.alloc(0))).toThrow(/opened with the private key/);
  });
});
