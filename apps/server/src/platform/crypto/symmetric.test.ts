import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CryptoError } from './crypto-error.js';
import { digest } from './digest.js';
import {
  aesGcmDecrypt,
  aesGcmEncrypt,
  aesKeyUnwrap,
  aesKeyUnwrapPadded,
  aesKeyWrap,
  aesKeyWrapPadded,
  hmac,
  hmacVerify,
  macGenerate,
  macVerify,
  sm4CbcDecrypt,
  sm4CbcEncrypt,
  sm4GcmDecrypt,
  sm4GcmEncrypt,
  symmetricDecrypt,
  symmetricEncrypt,
} from './symmetric.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const flip = (bytes: Buffer, index = 0) => {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
};

/* McGrew & Viega, "The Galois/Counter Mode of Operation", appendix B (the NIST GCM test cases). */
const GCM_K = 'feffe9928665731c6d6a8f9467308308';
const GCM_IV = 'cafebabefacedbaddecaf888';
const GCM_P =
  'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72' +
  '1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255';
const GCM_A = 'feedfacedeadbeeffeedfacedeadbeefabaddad2';
const gcmCases = [
  {
    name: 'test case 2 (AES-128, zero key and block)',
    key: '00000000000000000000000000000000',
    iv: '000000000000000000000000',
    plaintext: '00000000000000000000000000000000',
    aad: '',
    ciphertext: '0388dace60b6a392f328c2b971b2fe78',
    tag: 'ab6e47d42cec13bdf53a67b21257bddf',
  },
  {
    name: 'test case 3 (AES-128, 64 bytes)',
    key: GCM_K,
    iv: GCM_IV,
    plaintext: GCM_P,
    aad: '',
    ciphertext:
      '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e' +
      '21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985',
    tag: '4d5c2af327cd64a62cf35abd2ba6fab4',
  },
  {
    name: 'test case 4 (AES-128, 60 bytes with AAD)',
    key: GCM_K,
    iv: GCM_IV,
    plaintext: GCM_P.slice(0, 120),
    aad: GCM_A,
    ciphertext:
      '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e' +
      '21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091',
    tag: '5bc94fbc3221a5db94fae95ae7121a47',
  },
  {
    name: 'test case 8 (AES-192, zero key and block)',
    key: '000000000000000000000000000000000000000000000000',
    iv: '000000000000000000000000',
    plaintext: '00000000000000000000000000000000',
    aad: '',
    ciphertext: '98e7247c07f0fe411c267e4384b0f600',
    tag: '2ff58d80033927ab8ef4d4587514f0fb',
  },
  {
    name: 'test case 13 (AES-256, empty plaintext)',
    key: '0000000000000000000000000000000000000000000000000000000000000000',
    iv: '000000000000000000000000',
    plaintext: '',
    aad: '',
    ciphertext: '',
    tag: '530f8afbc74536b9a963b4f1c4cb738b',
  },
  {
    name: 'test case 14 (AES-256, zero key and block)',
    key: '0000000000000000000000000000000000000000000000000000000000000000',
    iv: '000000000000000000000000',
    plaintext: '00000000000000000000000000000000',
    aad: '',
    ciphertext: 'cea7403d4d606b6e074ec5d3baf39d18',
    tag: 'd0d1c8a799996bf0265b98b5d48ab919',
  },
  {
    name: 'test case 15 (AES-256, 64 bytes)',
    key: GCM_K + GCM_K,
    iv: GCM_IV,
    plaintext: GCM_P,
    aad: '',
    ciphertext:
      '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa' +
      '8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad',
    tag: 'b094dac5d93471bdec1a502270e3cc6c',
  },
  {
    name: 'test case 16 (AES-256, 60 bytes with AAD)',
    key: GCM_K + GCM_K,
    iv: GCM_IV,
    plaintext: GCM_P.slice(0, 120),
    aad: GCM_A,
    ciphertext:
      '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa' +
      '8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662',
    tag: '76fc6ece0f4e1768cddf8853bb2d551b',
  },
];

describe('AES-GCM', () => {
  it.each(gcmCases)('matches GCM $name', (c) => {
    const options = { iv: hex(c.iv), ...(c.aad ? { aad: hex(c.aad) } : {}) };
    const sealed = aesGcmEncrypt(hex(c.key), hex(c.plaintext), options);
    expect(sealed.ciphertext.toString('hex')).toBe(c.ciphertext);
    expect(sealed.tag.toString('hex')).toBe(c.tag);
    expect(aesGcmDecrypt(hex(c.key), sealed, options.aad).toString('hex')).toBe(c.plaintext);
  });

  it('draws a fresh 96-bit IV each time and round-trips with AAD', () => {
    const key = hex(GCM_K + GCM_K);
    const a = aesGcmEncrypt(key, Buffer.from('secret'), { aad: Buffer.from('ctx') });
    const b = aesGcmEncrypt(key, Buffer.from('secret'), { aad: Buffer.from('ctx') });
    expect(a.iv).toHaveLength(12);
    expect(a.tag).toHaveLength(16);
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(aesGcmDecrypt(key, a, Buffer.from('ctx')).toString()).toBe('secret');
  });

  it('refuses a flipped bit, another AAD, another key and a truncated tag', () => {
    const key = hex(GCM_K);
    const sealed = aesGcmEncrypt(key, Buffer.from('attack at dawn'), { aad: Buffer.from('a') });
    const fails = (run: () => unknown) => expect(run).toThrow(/authentication failed/);
    fails(() => aesGcmDecrypt(key, { ...sealed, ciphertext: flip(sealed.ciphertext) }, Buffer.from('a')));
    fails(() => aesGcmDecrypt(key, { ...sealed, tag: flip(sealed.tag, 15) }, Buffer.from('a')));
    fails(() => aesGcmDecrypt(key, sealed, Buffer.from('b')));
    fails(() => aesGcmDecrypt(key, sealed));
    fails(() => aesGcmDecrypt(flip(key), sealed, Buffer.from('a')));
    // Node would accept a 4-byte tag if the length were not pinned.
    expect(() => aesGcmDecrypt(key, { ...sealed, tag: sealed.tag.subarray(0, 4) }, Buffer.from('a'))).toThrow(
      /tag must be 16 bytes/,
    );
  });

  it('rejects keys and IVs of the wrong length', () => {
    expect(() => aesGcmEncrypt(Buffer.alloc(20), Buffer.alloc(1))).toThrow(CryptoError);
    expect(() => aesGcmEncrypt(Buffer.alloc(16), Buffer.alloc(1), { iv: Buffer.alloc(16) })).toThrow(
      /IV must be 12/,
    );
  });
});

describe('AES key wrap', () => {
  it('matches RFC 3394 §4.1 (128-bit KEK, 128-bit key) and §4.6 (256-bit KEK, 256-bit key)', () => {
    const kek128 = hex('000102030405060708090A0B0C0D0E0F');
    const key128 = hex('00112233445566778899AABBCCDDEEFF');
    const wrapped128 = hex('1FA68B0A8112B447 AEF34BD8FB5A7B82 9D3E862371D2CFE5');
    expect(aesKeyWrap(kek128, key128)).toEqual(wrapped128);
    expect(aesKeyUnwrap(kek128, wrapped128)).toEqual(key128);

    const kek256 = hex('000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F');
    const key256 = hex('00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F');
    const wrapped256 = hex(
      '28C9F404C4B810F4 CBCCB35CFB87F826 3F5786E2D80ED326 CBC7F0E71A99F43B FB988B9B7A02DD21',
    );
    expect(aesKeyWrap(kek256, key256)).toEqual(wrapped256);
    expect(aesKeyUnwrap(kek256, wrapped256)).toEqual(key256);
  });

  it('matches RFC 5649 §6 (192-bit KEK, 20-byte and 7-byte keys)', () => {
    const kek = hex('5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8');
    const key20 = hex('c37b7e6492584340bed12207808941155068f738');
    const wrapped20 = hex('138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a');
    const key7 = hex('466f7250617369');
    const wrapped7 = hex('afbeb0f07dfbf5419200f2ccb50bb24f');
    expect(aesKeyWrapPadded(kek, key20)).toEqual(wrapped20);
    expect(aesKeyUnwrapPadded(kek, wrapped20)).toEqual(key20);
    expect(aesKeyWrapPadded(kek, key7)).toEqual(wrapped7);
    expect(aesKeyUnwrapPadded(kek, wrapped7)).toEqual(key7);
  });

  it('detects a wrong KEK or a changed byte, and refuses unwrappable lengths', () => {
    const kek = hex('000102030405060708090A0B0C0D0E0F');
    const wrapped = hex('1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5');
    expect(() => aesKeyUnwrap(flip(kek), wrapped)).toThrow(/integrity check/);
    expect(() => aesKeyUnwrap(kek, flip(wrapped, 10))).toThrow(/integrity check/);
    expect(() => aesKeyUnwrapPadded(kek, flip(aesKeyWrapPadded(kek, Buffer.from('abc')), 3))).toThrow(
      /integrity check/,
    );
    expect(() => aesKeyWrap(kek, Buffer.alloc(12))).toThrow(/multiples of 8/);
    expect(() => aesKeyWrapPadded(kek, Buffer.alloc(0))).toThrow(/at least 1 byte/);
    expect(() => aesKeyWrap(Buffer.alloc(10), Buffer.alloc(16))).toThrow(/key-encryption key/);
  });
});

describe('HMAC', () => {
  // RFC 4231 test case 1 (key 0x0b × 20, "Hi There") and 2 (key "Jefe").
  const case1 = { key: Buffer.alloc(20, 0x0b), data: Buffer.from('Hi There') };
  const case2 = { key: Buffer.from('Jefe'), data: Buffer.from('what do ya want for nothing?') };
  const expected = [
    [
      'SHA-256',
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    ],
    [
      'SHA-384',
      'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
      'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
    ],
    [
      'SHA-512',
      '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde' +
        'daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554' +
        '9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    ],
  ] as const;

  it.each(expected)('HMAC-%s matches RFC 4231 test cases 1 and 2', (name, mac1, mac2) => {
    expect(hmac(name, case1.key, case1.data).toString('hex')).toBe(mac1);
    expect(hmac(name, case2.key, case2.data).toString('hex')).toBe(mac2);
    expect(hmacVerify(name, case2.key, case2.data, hex(mac2))).toBe(true);
  });

  it('verifies only the exact, full-length MAC', () => {
    const mac = macGenerate('HMAC-SHA256', case2.key, case2.data);
    expect(macVerify('HMAC-SHA256', case2.key, case2.data, mac)).toBe(true);
    expect(macVerify('HMAC-SHA256', case2.key, case2.data, flip(mac, 31))).toBe(false);
    expect(macVerify('HMAC-SHA256', case2.key, case2.data, mac.subarray(0, 16))).toBe(false);
    expect(macVerify('HMAC-SHA256', case2.key, Buffer.from('other'), mac)).toBe(false);
    expect(macVerify('HMAC-SHA384', case2.key, case2.data, mac)).toBe(false);
  });
});

describe('SM3', () => {
  it('matches the GB/T 32905 examples ("abc" and "abcd" × 16)', () => {
    expect(digest('SM3', Buffer.from('abc')).toString('hex')).toBe(
      '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0',
    );
    expect(digest('SM3', Buffer.from('abcd'.repeat(16))).toString('hex')).toBe(
      'debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732',
    );
  });
});

describe('SM4', () => {
  const key = hex('0123456789abcdeffedcba9876543210');

  it('matches the GB/T 32907 example block (through CBC with a zero IV)', () => {
    // CBC with a zero IV enciphers the first block exactly as ECB does.
    const ciphertext = sm4CbcEncrypt(key, Buffer.alloc(16), key);
    expect(ciphertext.subarray(0, 16).toString('hex')).toBe('681edf34d206965e86b3e94f536e4246');
    expect(ciphertext).toHaveLength(32); // PKCS#7 adds a full block
    expect(sm4CbcDecrypt(key, Buffer.alloc(16), ciphertext)).toEqual(key);
  });

  it('SM4-CBC round-trips any length and notices a wrong key through the padding', () => {
    const iv = hex('000102030405060708090a0b0c0d0e0f');
    for (const length of [0, 1, 15, 16, 17, 100]) {
      const plaintext = Buffer.alloc(length, 0x61);
      expect(sm4CbcDecrypt(key, iv, sm4CbcEncrypt(key, iv, plaintext))).toEqual(plaintext);
    }
    const ciphertext = sm4CbcEncrypt(key, iv, Buffer.from('sixteen byte msg!'));
    const wrongKeyResults = Array.from({ length: 8 }, (_, i) => {
      try {
        return sm4CbcDecrypt(flip(key, i), iv, ciphertext).toString() === 'sixteen byte msg!';
      } catch {
        return false;
      }
    });
    expect(wrongKeyResults.every((same) => !same)).toBe(true);
    expect(() => sm4CbcDecrypt(key, iv, Buffer.alloc(15))).toThrow(/multiple of 16/);
  });

  it('SM4-GCM matches RFC 8998 appendix A.1', () => {
    const iv = hex('00001234567800000000ABCD');
    const aad = hex('FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2');
    const plaintext = hex(
      'AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD' +
        'EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA',
    );
    const sealed = sm4GcmEncrypt(key, plaintext, { iv, aad });
    expect(sealed.ciphertext.toString('hex').toUpperCase()).toBe(
      '17F399F08C67D5EE19D0DC9969C4BB7D5FD46FD3756489069157B282BB200735' +
        'D82710CA5C22F0CCFA7CBF93D496AC15A56834CBCF98C397B4024A2691233B8D',
    );
    expect(sealed.tag.toString('hex').toUpperCase()).toBe('83DE3541E4C2B58177E065A9BF7B62EC');
    expect(sm4GcmDecrypt(key, sealed, aad)).toEqual(plaintext);
  });

  it('SM4-GCM refuses tampering, another AAD and a missing or short tag', () => {
    const sealed = sm4GcmEncrypt(key, Buffer.from('payload'), { aad: Buffer.from('x') });
    expect(() =>
      sm4GcmDecrypt(key, { ...sealed, ciphertext: flip(sealed.ciphertext) }, Buffer.from('x')),
    ).toThrow(/authentication failed/);
    expect(() => sm4GcmDecrypt(key, sealed, Buffer.from('y'))).toThrow(/authentication failed/);
    expect(() => sm4GcmDecrypt(flip(key), sealed, Buffer.from('x'))).toThrow(/authentication failed/);
    expect(() => sm4GcmDecrypt(key, { ...sealed, tag: Buffer.alloc(0) }, Buffer.from('x'))).toThrow(
      /tag must be/,
    );
    expect(sm4GcmDecrypt(key, sealed, Buffer.from('x')).toString()).toBe('payload');
  });
});

describe('by algorithm id', () => {
  it('uses AES-GCM for AES keys and SM4-GCM for SM4 keys, and checks the key length', () => {
    const aesKey = Buffer.alloc(32, 7);
    const sealed = symmetricEncrypt('AES-256', aesKey, Buffer.from('hello'));
    const direct = createCipheriv('aes-256-gcm', aesKey, sealed.iv);
    expect(Buffer.concat([direct.update('hello'), direct.final()])).toEqual(sealed.ciphertext);
    expect(symmetricDecrypt('AES-256', aesKey, sealed).toString()).toBe('hello');

    const sm4Key = Buffer.alloc(16, 9);
    const sm4Sealed = symmetricEncrypt('SM4', sm4Key, Buffer.from('hello'));
    expect(sm4GcmDecrypt(sm4Key, sm4Sealed).toString()).toBe('hello');
    expect(() => aesGcmDecrypt(sm4Key, sm4Sealed)).toThrow(/authentication failed/);

    expect(() => symmetricEncrypt('AES-128', aesKey, Buffer.from('x'))).toThrow(
      /AES-128 needs a 16-byte key/,
    );
    expect(() => symmetricEncrypt('SM4', aesKey, Buffer.from('x'))).toThrow(/SM4 needs a 16-byte key/);
  });
});
