/**
 * KMIP's binary encoding, TTLV: every item is a 3-byte tag, a 1-byte
 * type, a 4-byte big-endian length of the value, then the value padded with zero bytes to a
 * multiple of 8. A structure's value is its items, one after the other. The decoder trusts
 * nothing: lengths are checked against the type and against what is left of the enclosing item,
 * padding must be zeros, texts valid UTF-8, and limits bound the size, depth and item count of
 * a message, so that a hostile message costs at most its (bounded) length to refuse.
 */

/** The item types and their codes on the wire. */
export const TTLV_TYPES = {
  Structure: 0x01,
  Integer: 0x02,
  LongInteger: 0x03,
  BigInteger: 0x04,
  Enumeration: 0x05,
  Boolean: 0x06,
  TextString: 0x07,
  ByteString: 0x08,
  DateTime: 0x09,
  Interval: 0x0a,
  /** KMIP 2.0: microseconds since the epoch. */
  DateTimeExtended: 0x0b,
} as const;

export type TtlvType = keyof typeof TTLV_TYPES;

const TYPE_OF_CODE = new Map<number, TtlvType>(
  Object.entries(TTLV_TYPES).map(([name, code]) => [code, name as TtlvType]),
);

/** One item. Date-times are seconds since 1970 (DateTimeExtended: microseconds); intervals seconds. */
export type Ttlv =
  | { tag: number; type: 'Structure'; value: Ttlv[] }
  | { tag: number; type: 'Integer' | 'Enumeration' | 'Interval'; value: number }
  | { tag: number; type: 'LongInteger' | 'BigInteger' | 'DateTime' | 'DateTimeExtended'; value: bigint }
  | { tag: number; type: 'Boolean'; value: boolean }
  | { tag: number; type: 'TextString'; value: string }
  | { tag: number; type: 'ByteString'; value: Buffer };

/** Why a message was refused; `offset` is where in the message the fault was found. */
export type TtlvFault =
  'truncated' | 'length' | 'type' | 'padding' | 'value' | 'text' | 'depth' | 'items' | 'size' | 'trailing';

export class TtlvError extends Error {
  constructor(
    readonly fault: TtlvFault,
    readonly offset: number,
    detail: string,
  ) {
    super(`${detail} (at byte ${offset})`);
    this.name = 'TtlvError';
  }
}

/** What one message may hold at the most. */
export interface TtlvLimits {
  /** Bytes of the whole message, header included. */
  maxBytes: number;
  /** Structures within structures (the message itself is depth 1). */
  maxDepth: number;
  /** Items in the whole message. */
  maxItems: number;
}

export const DEFAULT_TTLV_LIMITS: TtlvLimits = { maxBytes: 1024 * 1024, maxDepth: 16, maxItems: 20_000 };

const HEADER = 8;
/** Arithmetic, not bitwise: a 32-bit length near 2³² must not wrap to a negative number. */
const padded = (length: number) => length + ((8 - (length % 8)) % 8);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The fixed value length of a type, or null where it varies. */
function fixedLength(type: TtlvType): number | null {
  switch (type) {
    case 'Integer':
    case 'Enumeration':
    case 'Interval':
      return 4;
    case 'LongInteger':
    case 'Boolean':
    case 'DateTime':
    case 'DateTimeExtended':
      return 8;
    default:
      return null;
  }
}

/**
 * The length of the message that starts `buffer`, once its 8-byte header has arrived (null
 * before): for a stream reader that must know how much to wait for. A header that is not a
 * structure or announces more than `maxBytes` is refused before anything more is read.
 */
export function messageLength(
  buffer: Buffer,
  limits: Pick<TtlvLimits, 'maxBytes'> = DEFAULT_TTLV_LIMITS,
): number | null {
  if (buffer.length < HEADER) return null;
  if (buffer[3] !== TTLV_TYPES.Structure) throw new TtlvError('type', 3, 'a message must be a structure');
  const length = buffer.readUInt32BE(4);
  if (length % 8 !== 0)
    throw new TtlvError('length', 4, `a structure's length must be a multiple of 8, not ${length}`);
  if (HEADER + length > limits.maxBytes)
    throw new TtlvError(
      'size',
      4,
      `the message announces ${HEADER + length} bytes, more than the limit of ${limits.maxBytes}`,
    );
  return HEADER + length;
}

/** Decodes one whole message (exactly one item, a structure, filling `buffer`). */
export function decodeTtlv(buffer: Buffer, limits: TtlvLimits = DEFAULT_TTLV_LIMITS): Ttlv {
  if (buffer.length > limits.maxBytes)
    throw new TtlvError(
      'size',
      0,
      `the message has ${buffer.length} bytes, more than the limit of ${limits.maxBytes}`,
    );
  let items = 0;

  function item(offset: number, end: number, depth: number): { item: Ttlv; next: number } {
    if (end - offset < HEADER) throw new TtlvError('truncated', offset, 'an item header is cut short');
    if (++items > limits.maxItems) throw new TtlvError('items', offset, `more than ${limits.maxItems} items`);
    const tag = buffer.readUIntBE(offset, 3);
    const type = TYPE_OF_CODE.get(buffer[offset + 3]!);
    if (!type)
      throw new TtlvError(
        'type',
        offset + 3,
        `unknown item type 0x${buffer[offset + 3]!.toString(16).padStart(2, '0')}`,
      );
    const length = buffer.readUInt32BE(offset + 4);
    const start = offset + HEADER;
    const fixed = fixedLength(type);
    if (fixed !== null && length !== fixed)
      throw new TtlvError('length', offset + 4, `a ${type} is ${fixed} bytes long, not ${length}`);
    if (
      (type === 'Structure' || type === 'BigInteger') &&
      (length % 8 !== 0 || (type === 'BigInteger' && length === 0))
    )
      throw new TtlvError(
        'length',
        offset + 4,
        `a ${type}'s length must be a positive multiple of 8, not ${length}`,
      );
    const next = start + padded(length);
    if (next > end)
      throw new TtlvError('truncated', offset + 4, `the item announces ${length} bytes; fewer are left`);
    for (let i = start + length; i < next; i++)
      if (buffer[i] !== 0) throw new TtlvError('padding', i, 'padding bytes must be zero');
    return { item: value(tag, type, start, length, depth), next };
  }

  function value(tag: number, type: TtlvType, start: number, length: number, depth: number): Ttlv {
    switch (type) {
      case 'Structure': {
        if (depth >= limits.maxDepth)
          throw new TtlvError('depth', start, `structures nested more than ${limits.maxDepth} deep`);
        const children: Ttlv[] = [];
        const end = start + length;
        for (let at = start; at < end;) {
          const read = item(at, end, depth + 1);
          children.push(read.item);
          at = read.next;
        }
        return { tag, type, value: children };
      }
      case 'Integer':
        return { tag, type, value: buffer.readInt32BE(start) };
      case 'Enumeration':
      case 'Interval':
        return { tag, type, value: buffer.readUInt32BE(start) };
      case 'LongInteger':
      case 'DateTime':
      case 'DateTimeExtended':
        return { tag, type, value: buffer.readBigInt64BE(start) };
      case 'BigInteger': {
        const bytes = buffer.subarray(start, start + length);
        let n = BigInt(`0x${bytes.toString('hex')}`);
        if (bytes[0]! & 0x80) n -= 1n << BigInt(length * 8);
        return { tag, type, value: n };
      }
      case 'Boolean': {
        const n = buffer.readBigUInt64BE(start);
        if (n > 1n) throw new TtlvError('value', start, 'a Boolean must be 0 or 1');
        return { tag, type, value: n === 1n };
      }
      case 'TextString':
        try {
          return { tag, type, value: strictUtf8.decode(buffer.subarray(start, start + length)) };
        } catch {
          throw new TtlvError('text', start, 'a Text String must be valid UTF-8');
        }
      case 'ByteString':
        return { tag, type, value: Buffer.from(buffer.subarray(start, start + length)) };
    }
  }

  const read = item(0, buffer.length, 0);
  if (read.item.type !== 'Structure') throw new TtlvError('type', 3, 'a message must be a structure');
  if (read.next !== buffer.length)
    throw new TtlvError('trailing', read.next, 'bytes after the end of the message');
  return read.item;
}

/** Two's complement big-endian bytes of `n`, sign-extended to a multiple of 8 bytes. */
function bigIntegerBytes(n: bigint): Buffer {
  let bytes = 8;
  while (n >= 1n << BigInt(bytes * 8 - 1) || n < -(1n << BigInt(bytes * 8 - 1))) bytes += 8;
  const unsigned = n < 0n ? (1n << BigInt(bytes * 8)) + n : n;
  return Buffer.from(unsigned.toString(16).padStart(bytes * 2, '0'), 'hex');
}

function valueLength(item: Ttlv): number {
  switch (item.type) {
    case 'Structure':
      return item.value.reduce((sum, child) => sum + HEADER + padded(valueLength(child)), 0);
    case 'BigInteger':
      return bigIntegerBytes(item.value).length;
    case 'TextString':
      return Buffer.byteLength(item.value, 'utf8');
    case 'ByteString':
      return item.value.length;
    default:
      return fixedLength(item.type)!;
  }
}

/** Encodes one item (a whole message when it is the request or response structure). */
export function encodeTtlv(root: Ttlv): Buffer {
  const out = Buffer.alloc(HEADER + padded(valueLength(root)));
  const write = (item: Ttlv, offset: number): number => {
    const length = valueLength(item);
    out.writeUIntBE(item.tag, offset, 3);
    out[offset + 3] = TTLV_TYPES[item.type];
    out.writeUInt32BE(length, offset + 4);
    const start = offset + HEADER;
    switch (item.type) {
      case 'Structure': {
        let at = start;
        for (const child of item.value) at = write(child, at);
        break;
      }
      case 'Integer':
        out.writeInt32BE(item.value, start);
        break;
      case 'Enumeration':
      case 'Interval':
        out.writeUInt32BE(item.value, start);
        break;
      case 'LongInteger':
      case 'DateTime':
      case 'DateTimeExtended':
        out.writeBigInt64BE(item.value, start);
        break;
      case 'BigInteger':
        bigIntegerBytes(item.value).copy(out, start);
        break;
      case 'Boolean':
        out.writeBigUInt64BE(item.value ? 1n : 0n, start);
        break;
      case 'TextString':
        out.write(item.value, start, 'utf8');
        break;
      case 'ByteString':
        item.value.copy(out, start);
        break;
    }
    return start + padded(length);
  };
  write(root, 0);
  return out;
}
