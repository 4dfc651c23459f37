import { PkiError } from './pki-error.js';

/**
 * The little DER the engine writes and reads by hand: assembling a signed structure
 * around the exact TBS bytes that were signed, reading those bytes back out of a
 * certificate/CSR/CRL without re-encoding them, and the CRL entry list (crl.ts).
 */

export function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...body: Buffer[]): Buffer {
  const content = body.length === 1 && body[0] ? body[0] : Buffer.concat(body);
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);

/** The minimal two's-complement content of a non-negative integer given as big-endian bytes. */
export function unsignedIntegerContent(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  if (trimmed.length === 0) return Buffer.from([0]);
  return (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}

export const integer = (bytes: Buffer): Buffer => tlv(0x02, unsignedIntegerContent(bytes));

export function bigintBytes(value: bigint): Buffer {
  if (value < 0n) throw new RangeError('Negative integer');
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

/** The encoded length of a Time: UTCTime through 2049, GeneralizedTime from 2050. */
export const x509TimeLength = (date: Date): number => (date.getUTCFullYear() >= 2050 ? 17 : 15);

/**
 * Writes the TLV of `date` as UTCTime `YYMMDDHHMMSSZ` (0x17) or GeneralizedTime
 * `YYYYMMDDHHMMSSZ` (0x18), whole seconds, at `offset`; returns the offset after it.
 */
export function writeTime(out: Buffer, offset: number, date: Date, generalized: boolean): number {
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 1950 || year > 9999) throw new RangeError('Date out of range for X.509');
  let at = offset;
  out[at++] = generalized ? 0x18 : 0x17;
  out[at++] = generalized ? 15 : 13;
  if (generalized) at = writeTwoDigits(out, at, (year / 100) | 0);
  at = writeTwoDigits(out, at, year % 100);
  at = writeTwoDigits(out, at, date.getUTCMonth() + 1);
  at = writeTwoDigits(out, at, date.getUTCDate());
  at = writeTwoDigits(out, at, date.getUTCHours());
  at = writeTwoDigits(out, at, date.getUTCMinutes());
  at = writeTwoDigits(out, at, date.getUTCSeconds());
  out[at++] = 0x5a; // 'Z'
  return at;
}

function writeTwoDigits(out: Buffer, offset: number, value: number): number {
  out[offset] = 0x30 + ((value / 10) | 0);
  out[offset + 1] = 0x30 + (value % 10);
  return offset + 2;
}

function encodeTime(date: Date, generalized: boolean): Buffer {
  const out = Buffer.alloc(generalized ? 17 : 15);
  writeTime(out, 0, date, generalized);
  return out;
}

/** GeneralizedTime `YYYYMMDDHHMMSSZ` (whole seconds, RFC 5280 §4.1.2.5.2). */
export const generalizedTime = (date: Date): Buffer => encodeTime(date, true);

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5). */
export const x509Time = (date: Date): Buffer => encodeTime(date, date.getUTCFullYear() >= 2050);

export interface Tlv {
  readonly tag: number;
  /** Offset of the tag byte. */
  readonly offset: number;
  /** Offset of the first content byte. */
  readonly start: number;
  /** Offset just past the content. */
  readonly end: number;
}

export function readTlv(der: Buffer, offset: number, what = 'DER'): Tlv {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) throw new PkiError('invalid-input', `Truncated ${what}`);
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new PkiError('invalid-input', `Unsupported length in ${what}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0);
    start += count;
  }
  const end = start + length;
  if (end > der.length) throw new PkiError('invalid-input', `Truncated ${what}`);
  return { tag, offset, start, end };
}

/** The children of the constructed value at `offset`. */
export function children(der: Buffer, parent: Tlv, what = 'DER'): Tlv[] {
  const out: Tlv[] = [];
  for (let position = parent.start; position < parent.end;) {
    const child = readTlv(der, position, what);
    out.push(child);
    position = child.end;
  }
  return out;
}

export interface SignedParts {
  /** The exact bytes that were signed (the whole TBS TLV). */
  readonly tbs: Buffer;
  readonly signatureAlgorithm: Buffer;
  /** The signature bytes (the BIT STRING content after its unused-bits byte). */
  readonly signature: Buffer;
}

/** Splits `SEQUENCE { tbs, AlgorithmIdentifier, BIT STRING }` (certificate, CSR, CRL, OCSP basic response). */
export function signedParts(der: Buffer, what: string): SignedParts {
  const outer = readTlv(der, 0, what);
  if (outer.tag !== 0x30 || outer.end !== der.length)
    throw new PkiError('invalid-input', `Malformed ${what}`);
  const [tbs, algorithm, signature] = children(der, outer, what);
  if (!tbs || !algorithm || !signature || signature.tag !== 0x03) {
    throw new PkiError('invalid-input', `Malformed ${what}`);
  }
  return {
    tbs: der.subarray(tbs.offset, tbs.end),
    signatureAlgorithm: der.subarray(algorithm.offset, algorithm.end),
    signature: der.subarray(signature.start + 1, signature.end),
  };
}
