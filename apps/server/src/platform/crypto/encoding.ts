import { invalidInput, invalidKey } from './crypto-error.js';

/**
 * The small amount of DER and PEM this folder writes by hand: the SPKI of an SM2
 * public key (Node cannot export one we did not make with OpenSSL), the PKCS#8
 * wrapper of an Ed25519 seed, and ECDSA-style (r, s) signatures for SM2.
 */

/** SEQUENCE { SEQUENCE { id-ecPublicKey 1.2.840.10045.2.1, sm2 1.2.156.10197.1.301 }, BIT STRING (0 unused bits) } */
const SM2_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a811ccf5501822d03420004', 'hex');
export const SM2_POINT_BYTES = 65;
export const SM2_SPKI_BYTES = SM2_SPKI_PREFIX.length + SM2_POINT_BYTES - 1;

/** The SubjectPublicKeyInfo (DER) of an uncompressed SM2 point `04 || x || y`. */
export function sm2PublicKeyToSpki(point: Buffer): Buffer {
  if (point.length !== SM2_POINT_BYTES || point[0] !== 0x04) {
    throw invalidKey('An SM2 public key point must be 65 bytes, uncompressed (04 || x || y)');
  }
  return Buffer.concat([SM2_SPKI_PREFIX, point.subarray(1)]);
}

/** The uncompressed point inside an SM2 SubjectPublicKeyInfo (the form `sm2PublicKeyToSpki` writes). */
export function sm2PublicKeyFromSpki(spki: Buffer): Buffer {
  if (spki.length !== SM2_SPKI_BYTES || !spki.subarray(0, SM2_SPKI_PREFIX.length).equals(SM2_SPKI_PREFIX)) {
    throw invalidKey('Not an SM2 SubjectPublicKeyInfo (id-ecPublicKey with curve 1.2.156.10197.1.301)');
  }
  return Buffer.concat([Buffer.from([0x04]), spki.subarray(SM2_SPKI_PREFIX.length)]);
}

/** RFC 8410 PKCS#8 for Ed25519: SEQUENCE { INTEGER 0, SEQUENCE { 1.3.101.112 }, OCTET STRING { OCTET STRING seed } } */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function ed25519PrivateKeyFromSeed(seed: Buffer): Buffer {
  if (seed.length !== 32) throw invalidKey('An Ed25519 private key seed must be 32 bytes');
  return Buffer.concat([ED25519_PKCS8_PREFIX, seed]);
}

export type PemLabel = 'PUBLIC KEY' | 'PRIVATE KEY';

/** PEM armour (64-character lines), as OpenSSL reads it. */
export function derToPem(der: Buffer, label: PemLabel): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export function pemToDer(pem: string, label: PemLabel): Buffer {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
  if (!match?.[1]) throw invalidKey(`No '${label}' PEM block found`);
  return Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
}

/** A big-endian unsigned integer from bytes. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

/** A big-endian unsigned integer as exactly `length` bytes. */
export function bigIntToBytes(value: bigint, length: number): Buffer {
  const hex = value.toString(16);
  if (value < 0n || hex.length > length * 2) throw new RangeError(`Integer does not fit in ${length} bytes`);
  return Buffer.from(hex.padStart(length * 2, '0'), 'hex');
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length <= 0xff) return Buffer.from([0x81, length]);
  throw new RangeError('DER length too large for a signature');
}

function derInteger(value: bigint): Buffer {
  const hex = value.toString(16);
  let body = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return Buffer.concat([Buffer.from([0x02]), derLength(body.length), body]);
}

/** `Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (also the SM2 signature format, GM/T 0009). */
export function encodeDerSignature(r: bigint, s: bigint): Buffer {
  if (r <= 0n || s <= 0n) throw new RangeError('Signature integers must be positive');
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

/**
 * Strict DER decoding of `SEQUENCE { r INTEGER, s INTEGER }`: minimal lengths and
 * integers, positive values, nothing trailing. A lax parser would accept more than
 * one encoding of the same signature.
 */
export function decodeDerSignature(der: Buffer): { r: bigint; s: bigint } {
  let offset = 0;
  const fail = (why: string): never => {
    throw invalidInput(`Malformed DER signature: ${why}`);
  };
  const readLength = (): number => {
    const first = der[offset++];
    if (first === undefined) return fail('truncated length');
    if (first < 0x80) return first;
    if (first !== 0x81) return fail('unsupported length form');
    const value = der[offset++];
    if (value === undefined || value < 0x80) return fail('non-minimal length');
    return value;
  };
  const readInteger = (): bigint => {
    if (der[offset++] !== 0x02) return fail('expected INTEGER');
    const length = readLength();
    const body = der.subarray(offset, offset + length);
    if (length === 0 || body.length !== length) return fail('bad INTEGER length');
    const [b0 = 0, b1 = 0] = body;
    if (b0 & 0x80) return fail('negative INTEGER');
    if (b0 === 0 && length > 1 && !(b1 & 0x80)) return fail('non-minimal INTEGER');
    offset += length;
    return bytesToBigInt(body);
  };
  if (der[offset++] !== 0x30) fail('expected SEQUENCE');
  const length = readLength();
  if (offset + length !== der.length) fail('length does not match the data');
  const r = readInteger();
  const s = readInteger();
  if (offset !== der.length) fail('trailing data');
  return { r, s };
}
