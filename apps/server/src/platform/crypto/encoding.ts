import { invalidInput, invalidKey } from './crypto-error.js';

/**
 * The small amount of DER and PEM this folder writes by hand: SM2 keys (SPKI and
 * PKCS#8; Node cannot export an SM2 key it did not make), the PKCS#8 wrapper of an
 * Ed25519 seed, (r, s) signatures and GM/T 0009 SM2 ciphertexts.
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

/* DER: just enough to write and strictly read SEQUENCEs of INTEGERs and OCTET STRINGs. */

const TAG = { integer: 0x02, bitString: 0x03, octetString: 0x04, sequence: 0x30 } as const;

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function derTlv(tag: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

function derInteger(value: bigint): Buffer {
  const hex = value.toString(16);
  let body = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return derTlv(TAG.integer, body);
}

/**
 * A strict reader over one DER SEQUENCE: definite minimal lengths, minimal positive
 * INTEGERs, nothing trailing. A lax parser would accept several encodings of one value.
 */
class DerSequenceReader {
  private offset = 0;
  private readonly end: number;

  constructor(
    private readonly der: Buffer,
    private readonly what: string,
  ) {
    const body = this.read(TAG.sequence, 'SEQUENCE');
    if (body.end !== der.length) this.fail('trailing data after the SEQUENCE');
    this.offset = body.start;
    this.end = body.end;
  }

  fail(why: string): never {
    throw invalidInput(`Malformed ${this.what}: ${why}`);
  }

  private read(tag: number, name: string): { start: number; end: number } {
    if (this.der[this.offset] !== tag) this.fail(`expected ${name}`);
    let position = this.offset + 1;
    const first = this.der[position++];
    if (first === undefined) this.fail('truncated length');
    let length = first;
    if (first >= 0x80) {
      const count = first & 0x7f;
      if (count === 0 || count > 4) this.fail('unsupported length form');
      length = 0;
      for (let i = 0; i < count; i++) {
        const byte = this.der[position++];
        if (byte === undefined) this.fail('truncated length');
        if (i === 0 && byte === 0) this.fail('non-minimal length');
        length = length * 256 + byte;
      }
      if (length < 0x80) this.fail('non-minimal length');
    }
    const end = position + length;
    if (end > this.der.length) this.fail(`truncated ${name}`);
    this.offset = end;
    return { start: position, end };
  }

  integer(): bigint {
    const { start, end } = this.read(TAG.integer, 'INTEGER');
    const [b0, b1 = 0] = this.der.subarray(start, end);
    if (b0 === undefined) this.fail('empty INTEGER');
    if (b0 & 0x80) this.fail('negative INTEGER');
    if (b0 === 0 && end - start > 1 && !(b1 & 0x80)) this.fail('non-minimal INTEGER');
    return bytesToBigInt(this.der.subarray(start, end));
  }

  octetString(): Buffer {
    const { start, end } = this.read(TAG.octetString, 'OCTET STRING');
    return this.der.subarray(start, end);
  }

  done(): void {
    if (this.offset !== this.end) this.fail('unexpected extra fields');
  }
}

/** `Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (also the SM2 signature format, GM/T 0009). */
export function encodeDerSignature(r: bigint, s: bigint): Buffer {
  if (r <= 0n || s <= 0n) throw new RangeError('Signature integers must be positive');
  return derTlv(TAG.sequence, Buffer.concat([derInteger(r), derInteger(s)]));
}

export function decodeDerSignature(der: Buffer): { r: bigint; s: bigint } {
  const reader = new DerSequenceReader(der, 'DER signature');
  const r = reader.integer();
  const s = reader.integer();
  reader.done();
  return { r, s };
}

/*
 * GM/T 0009 `SM2Cipher ::= SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING (C3),
 * cipherText OCTET STRING (C2) }`: how OpenSSL and most GM/T tools exchange SM2
 * ciphertexts. This folder's own form is the raw C1 || C3 || C2.
 */

/** C1 || C3 || C2 (C1 = 04 || x || y) to DER `SM2Cipher`. */
export function sm2CiphertextToDer(ciphertext: Buffer): Buffer {
  if (ciphertext.length <= SM2_POINT_BYTES + 32 || ciphertext[0] !== 0x04) {
    throw invalidInput('An SM2 ciphertext is C1 (65 bytes, 04 || x || y) || C3 (32 bytes) || C2');
  }
  const x = bytesToBigInt(ciphertext.subarray(1, 33));
  const y = bytesToBigInt(ciphertext.subarray(33, 65));
  return derTlv(
    TAG.sequence,
    Buffer.concat([
      derInteger(x),
      derInteger(y),
      derTlv(TAG.octetString, ciphertext.subarray(65, 97)),
      derTlv(TAG.octetString, ciphertext.subarray(97)),
    ]),
  );
}

/** DER `SM2Cipher` to C1 || C3 || C2. */
export function sm2CiphertextFromDer(der: Buffer): Buffer {
  const reader = new DerSequenceReader(der, 'SM2Cipher');
  const x = reader.integer();
  const y = reader.integer();
  const hash = reader.octetString();
  const cipherText = reader.octetString();
  reader.done();
  if (hash.length !== 32) reader.fail('the SM3 hash (C3) must be 32 bytes');
  if (cipherText.length === 0) reader.fail('empty cipherText (C2)');
  let c1: Buffer;
  try {
    c1 = Buffer.concat([Buffer.from([0x04]), bigIntToBytes(x, 32), bigIntToBytes(y, 32)]);
  } catch {
    return reader.fail('a coordinate is longer than 32 bytes');
  }
  return Buffer.concat([c1, hash, cipherText]);
}

/**
 * PKCS#8 (RFC 5915 ECPrivateKey inside, with the public point) for an SM2 key, so
 * OpenSSL and other tools can read the raw scalar this folder stores.
 */
export function sm2PrivateKeyToPkcs8(privateKey: Buffer, publicPoint: Buffer): Buffer {
  if (privateKey.length !== 32) throw invalidKey('An SM2 private key is the raw 32-byte scalar');
  if (publicPoint.length !== SM2_POINT_BYTES || publicPoint[0] !== 0x04) {
    throw invalidKey('An SM2 public key point must be 65 bytes, uncompressed (04 || x || y)');
  }
  const ecPrivateKey = derTlv(
    TAG.sequence,
    Buffer.concat([
      derInteger(1n),
      derTlv(TAG.octetString, privateKey),
      derTlv(0xa1, derTlv(TAG.bitString, Buffer.concat([Buffer.from([0]), publicPoint]))),
    ]),
  );
  const algorithm = Buffer.from('301306072a8648ce3d020106082a811ccf5501822d', 'hex');
  return derTlv(
    TAG.sequence,
    Buffer.concat([derInteger(0n), algorithm, derTlv(TAG.octetString, ecPrivateKey)]),
  );
}
