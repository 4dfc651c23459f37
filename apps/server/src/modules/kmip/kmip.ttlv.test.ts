import { describe, expect, it } from 'vitest';
import { decodeTtlv, encodeTtlv, messageLength, type Ttlv, TtlvError } from './kmip.ttlv.js';

/** The specification writes its examples as hex bytes with `|` between tag, type, length and value. */
const hex = (text: string) => Buffer.from(text.replace(/[\s|]/g, ''), 'hex');

/** An item wrapped in a structure, as a message must be (tag 0x420078, Request Message). */
const message = (...items: Ttlv[]): Ttlv => ({ tag: 0x420078, type: 'Structure', value: items });
const inMessage = (bytes: Buffer) =>
  Buffer.concat([hex(`42 00 78 | 01 | ${bytes.length.toString(16).padStart(8, '0')}`), bytes]);

// The encoding examples of the KMIP specification (1.x section 9.1.2; the same in 2.0), each an
// item with the tag 0x420020.
const SPEC_EXAMPLES: [string, Ttlv, string][] = [
  [
    'an Integer of 8',
    { tag: 0x420020, type: 'Integer', value: 8 },
    '42 00 20 | 02 | 00 00 00 04 | 00 00 00 08 00 00 00 00',
  ],
  [
    'a Long Integer of 123456789000000000',
    { tag: 0x420020, type: 'LongInteger', value: 123456789000000000n },
    '42 00 20 | 03 | 00 00 00 08 | 01 B6 9B 4B A5 74 92 00',
  ],
  [
    'a Big Integer of 1234567890000000000000000000',
    { tag: 0x420020, type: 'BigInteger', value: 1234567890000000000000000000n },
    '42 00 20 | 04 | 00 00 00 10 | 00 00 00 00 03 FD 35 EB 6B C2 DF 46 18 08 00 00',
  ],
  [
    'an Enumeration of 255',
    { tag: 0x420020, type: 'Enumeration', value: 255 },
    '42 00 20 | 05 | 00 00 00 04 | 00 00 00 FF 00 00 00 00',
  ],
  [
    'a Boolean true',
    { tag: 0x420020, type: 'Boolean', value: true },
    '42 00 20 | 06 | 00 00 00 08 | 00 00 00 00 00 00 00 01',
  ],
  [
    'the Text String "Hello World"',
    { tag: 0x420020, type: 'TextString', value: 'Hello World' },
    '42 00 20 | 07 | 00 00 00 0B | 48 65 6C 6C 6F 20 57 6F 72 6C 64 00 00 00 00 00',
  ],
  [
    'the Byte String 0x010203',
    { tag: 0x420020, type: 'ByteString', value: Buffer.from([1, 2, 3]) },
    '42 00 20 | 08 | 00 00 00 03 | 01 02 03 00 00 00 00 00',
  ],
  [
    'the Date-Time Friday, March 14, 2008, 11:56:40 GMT',
    { tag: 0x420020, type: 'DateTime', value: BigInt(Date.UTC(2008, 2, 14, 11, 56, 40) / 1000) },
    '42 00 20 | 09 | 00 00 00 08 | 00 00 00 00 47 DA 67 F8',
  ],
  [
    'an Interval of 10 days',
    { tag: 0x420020, type: 'Interval', value: 10 * 86_400 },
    '42 00 20 | 0A | 00 00 00 04 | 00 0D 2F 00 00 00 00 00',
  ],
  [
    'a Structure of an Enumeration 254 (tag 0x420004) and an Integer 255 (tag 0x420005)',
    {
      tag: 0x420020,
      type: 'Structure',
      value: [
        { tag: 0x420004, type: 'Enumeration', value: 254 },
        { tag: 0x420005, type: 'Integer', value: 255 },
      ],
    },
    '42 00 20 | 01 | 00 00 00 20 | 42 00 04 | 05 | 00 00 00 04 | 00 00 00 FE 00 00 00 00 | 42 00 05 | 02 | 00 00 00 04 | 00 00 00 FF 00 00 00 00',
  ],
];

describe('TTLV encoding', () => {
  it.each(SPEC_EXAMPLES)('encodes and decodes %s as the specification writes it', (_, item, bytes) => {
    expect(encodeTtlv(item).toString('hex')).toBe(hex(bytes).toString('hex'));
    expect(decodeTtlv(inMessage(hex(bytes)))).toEqual(message(item));
  });

  it('writes negative and wide Big Integers in two’s complement, sign-extended to 8 bytes', () => {
    for (const n of [-1n, -(2n ** 63n), 2n ** 63n, -(2n ** 64n) - 5n, 18446744073709551615n]) {
      const item: Ttlv = { tag: 0x420020, type: 'BigInteger', value: n };
      const bytes = encodeTtlv(item);
      expect((bytes.length - 8) % 8).toBe(0);
      expect(decodeTtlv(inMessage(bytes))).toEqual(message(item));
    }
    expect(encodeTtlv({ tag: 0x420020, type: 'BigInteger', value: -1n }).subarray(8).toString('hex')).toBe(
      'ffffffffffffffff',
    );
  });

  it('keeps UTF-8 texts, empty strings and negative integers', () => {
    const items: Ttlv[] = [
      { tag: 0x420055, type: 'TextString', value: '密钥 ключ 🔑' },
      { tag: 0x420055, type: 'TextString', value: '' },
      { tag: 0x420056, type: 'ByteString', value: Buffer.alloc(0) },
      { tag: 0x420057, type: 'Integer', value: -2_147_483_648 },
      { tag: 0x420058, type: 'DateTimeExtended', value: 1_511_155_240_345_567n },
    ];
    expect(decodeTtlv(encodeTtlv(message(...items)))).toEqual(message(...items));
  });
});

describe('TTLV decoding of hostile input', () => {
  const valid = encodeTtlv(message({ tag: 0x420020, type: 'TextString', value: 'Hello World' }));
  const fault = (buffer: Buffer, limits?: Parameters<typeof decodeTtlv>[1]) => {
    try {
      decodeTtlv(buffer, limits);
    } catch (err) {
      expect(err).toBeInstanceOf(TtlvError);
      return (err as TtlvError).fault;
    }
    return 'accepted';
  };

  it('refuses every truncation of a valid message', () => {
    for (let cut = 0; cut < valid.length; cut++) expect(fault(valid.subarray(0, cut))).not.toBe('accepted');
  });

  it('refuses lengths that lie, wrong fixed lengths, unknown types, dirty padding and trailing bytes', () => {
    const lying = Buffer.from(valid);
    lying.writeUInt32BE(0x7fffffff, 12); // the text claims 2 GiB
    expect(fault(lying)).toBe('truncated');
    expect(fault(inMessage(hex('42 00 20 | 02 | 00 00 00 08 | 00 00 00 08 00 00 00 00')))).toBe('length');
    expect(fault(inMessage(hex('42 00 20 | 0C | 00 00 00 00')))).toBe('type');
    expect(fault(inMessage(hex('42 00 20 | 02 | 00 00 00 04 | 00 00 00 08 00 00 00 01')))).toBe('padding');
    expect(fault(inMessage(hex('42 00 20 | 06 | 00 00 00 08 | 00 00 00 00 00 00 00 02')))).toBe('value');
    expect(fault(inMessage(hex('42 00 20 | 07 | 00 00 00 02 | C3 28 00 00 00 00 00 00')))).toBe('text');
    expect(fault(inMessage(hex('42 00 20 | 04 | 00 00 00 00')))).toBe('length');
    expect(fault(Buffer.concat([valid, Buffer.alloc(8)]))).toBe('trailing');
    expect(fault(hex('42 00 20 | 02 | 00 00 00 04 | 00 00 00 08 00 00 00 00'))).toBe('type');
  });

  it('bounds nesting, item count and size', () => {
    let deep: Ttlv = { tag: 0x420020, type: 'Integer', value: 1 };
    for (let i = 0; i < 40; i++) deep = { tag: 0x420020, type: 'Structure', value: [deep] };
    expect(fault(encodeTtlv(message(deep)))).toBe('depth');
    const many = message(
      ...Array.from({ length: 50 }, () => ({ tag: 0x420020, type: 'Boolean' as const, value: true })),
    );
    expect(fault(encodeTtlv(many), { maxBytes: 1 << 20, maxDepth: 16, maxItems: 20 })).toBe('items');
    expect(fault(encodeTtlv(many), { maxBytes: 100, maxDepth: 16, maxItems: 100 })).toBe('size');
  });

  it('tells a stream reader how long a message is from its header, refusing oversized or odd ones at once', () => {
    expect(messageLength(valid.subarray(0, 7))).toBeNull();
    expect(messageLength(valid.subarray(0, 8))).toBe(valid.length);
    expect(() => messageLength(hex('42 00 78 | 01 | 7F FF FF F8'), { maxBytes: 65_536 })).toThrow(
      /more than the limit/,
    );
    expect(() => messageLength(hex('42 00 78 | 02 | 00 00 00 04'))).toThrow(TtlvError);
    expect(() => messageLength(hex('42 00 78 | 01 | 00 00 00 04'))).toThrow(TtlvError);
  });

  it('never throws anything but a TtlvError on random mutations of a valid message', () => {
    const base = encodeTtlv(
      message(
        { tag: 0x420077, type: 'Structure', value: [{ tag: 0x420069, type: 'Integer', value: 1 }] },
        { tag: 0x42000f, type: 'Structure', value: [{ tag: 0x420094, type: 'TextString', value: 'key-1' }] },
      ),
    );
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x80000000;
    for (let round = 0; round < 5_000; round++) {
      const bytes = Buffer.from(base);
      for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--)
        bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const cut = random() < 0.2 ? bytes.subarray(0, Math.floor(random() * bytes.length)) : bytes;
      try {
        decodeTtlv(cut);
      } catch (err) {
        expect(err).toBeInstanceOf(TtlvError);
      }
    }
  });
});
