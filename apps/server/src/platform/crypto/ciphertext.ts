import { type AlgorithmId, algorithmByCode, algorithmInfo, isBase64Text } from '@ksp/contracts';
import { invalidInput } from './crypto-error.js';
import { SM2_POINT_BYTES } from './encoding.js';
import {
  type CipherAlgorithm,
  GCM_IV_BYTES,
  GCM_TAG_BYTES,
  isCipherAlgorithm,
  symmetricDecrypt,
  symmetricEncrypt,
} from './symmetric.js';

/**
 * The self-describing ciphertext the crypto API hands out: one Base64 string
 * (RFC 4648 §4, padded) of this binary layout, format version 1:
 *
 * | offset | bytes | field                                                   |
 * |--------|-------|---------------------------------------------------------|
 * | 0      | 1     | format version, 0x01                                    |
 * | 1      | 16    | key id (UUID, bytes in RFC 9562 order)                  |
 * | 17     | 4     | key version, unsigned big-endian                        |
 * | 21     | 1     | algorithm code (`code` in algorithms.ts)                |
 * | 22     | 1     | IV length n (12 for AES-GCM / SM4-GCM, 0 for RSA / SM2) |
 * | 23     | n     | IV                                                      |
 * | 23+n   | 1     | tag length t (16 for GCM, 0 for RSA / SM2)              |
 * | 24+n   | t     | tag                                                     |
 * | 24+n+t | rest  | ciphertext                                              |
 *
 * The key id and version travel inside, so decryption needs nothing but the
 * string (and the caller's AAD). For GCM the first 22 bytes are prefixed to the
 * AAD, so a header edited to point at another key version fails authentication.
 */

export const CIPHERTEXT_FORMAT_VERSION = 1;

export interface CiphertextEnvelope {
  readonly keyId: string;
  readonly keyVersion: number;
  readonly algorithm: AlgorithmId;
  readonly iv: Buffer;
  readonly tag: Buffer;
  readonly ciphertext: Buffer;
}

export type CiphertextHeader = Pick<CiphertextEnvelope, 'keyId' | 'keyVersion' | 'algorithm'>;

const HEADER_BYTES = 22;
const MAX_KEY_VERSION = 0xffffffff;

const malformed = (why: string) => invalidInput(`Malformed ciphertext: ${why}`);

/** What the IV, tag and ciphertext of an algorithm must look like; null if it produces no ciphertexts. */
function shapeOf(
  algorithm: AlgorithmId,
): { iv: number; tag: number; check(ciphertext: Buffer): string | null } | null {
  const info = algorithmInfo(algorithm);
  if (isCipherAlgorithm(algorithm)) return { iv: GCM_IV_BYTES, tag: GCM_TAG_BYTES, check: () => null };
  if (info.family === 'RSA') {
    const bytes = info.sizeBits / 8;
    return {
      iv: 0,
      tag: 0,
      check: (ciphertext) =>
        ciphertext.length === bytes
          ? null
          : `an ${algorithm} ciphertext is ${bytes} bytes, got ${ciphertext.length}`,
    };
  }
  if (info.family === 'SM2') {
    return {
      iv: 0,
      tag: 0,
      check: (ciphertext) =>
        ciphertext.length > SM2_POINT_BYTES + 32 && ciphertext[0] === 0x04
          ? null
          : 'an SM2 ciphertext is C1 (65 bytes, starting 04) || C3 (32 bytes) || C2',
    };
  }
  return null;
}

function uuidToBytes(keyId: string): Buffer {
  const dashed =
    keyId.length === 36 && keyId[8] === '-' && keyId[13] === '-' && keyId[18] === '-' && keyId[23] === '-';
  // Buffer.from stops at the first character that is not hex: a short result means a bad id.
  const bytes = dashed
    ? Buffer.from(
        keyId.slice(0, 8) + keyId.slice(9, 13) + keyId.slice(14, 18) + keyId.slice(19, 23) + keyId.slice(24),
        'hex',
      )
    : null;
  if (bytes?.length !== 16) throw invalidInput(`Key id '${keyId}' is not a UUID`);
  return bytes;
}

function bytesToUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function headerBytes(header: CiphertextHeader): Buffer {
  if (!Number.isInteger(header.keyVersion) || header.keyVersion < 0 || header.keyVersion > MAX_KEY_VERSION) {
    throw invalidInput(
      `Key version must be an integer from 0 to ${MAX_KEY_VERSION}, got ${header.keyVersion}`,
    );
  }
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes[0] = CIPHERTEXT_FORMAT_VERSION;
  uuidToBytes(header.keyId).copy(bytes, 1);
  bytes.writeUInt32BE(header.keyVersion, 17);
  bytes[21] = algorithmInfo(header.algorithm).code;
  return bytes;
}

/** The AAD a GCM ciphertext in an envelope is sealed with: the 22 header bytes, then the caller's AAD. */
export function envelopeAad(header: CiphertextHeader, aad?: Buffer): Buffer {
  return aad ? Buffer.concat([headerBytes(header), aad]) : headerBytes(header);
}

export function encodeCiphertext(envelope: CiphertextEnvelope): string {
  const shape = shapeOf(envelope.algorithm);
  if (!shape) throw invalidInput(`${envelope.algorithm} keys do not produce ciphertexts`);
  if (envelope.iv.length !== shape.iv) {
    throw invalidInput(`An ${envelope.algorithm} IV is ${shape.iv} bytes, got ${envelope.iv.length}`);
  }
  if (envelope.tag.length !== shape.tag) {
    throw invalidInput(`An ${envelope.algorithm} tag is ${shape.tag} bytes, got ${envelope.tag.length}`);
  }
  const problem = shape.check(envelope.ciphertext);
  if (problem) throw invalidInput(`Cannot encode ciphertext: ${problem}`);
  return assemble(headerBytes(envelope), envelope);
}

/** The layout of the table above, from the header bytes on, in Base64. */
function assemble(header: Buffer, body: Pick<CiphertextEnvelope, 'iv' | 'tag' | 'ciphertext'>): string {
  return Buffer.concat([
    header,
    Buffer.from([body.iv.length]),
    body.iv,
    Buffer.from([body.tag.length]),
    body.tag,
    body.ciphertext,
  ]).toString('base64');
}

/** Parses and validates an envelope; every defect is reported as a `CryptoError` ('invalid-input'). */
export function parseCiphertext(text: string): CiphertextEnvelope {
  if (typeof text !== 'string' || text.length === 0) throw malformed('empty');
  if (!isBase64Text(text)) throw malformed('not Base64 (RFC 4648 alphabet with = padding)');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw malformed('not canonical Base64');
  if (bytes.length < HEADER_BYTES + 2) throw malformed(`too short (${bytes.length} bytes)`);
  const version = bytes[0];
  if (version !== CIPHERTEXT_FORMAT_VERSION) {
    throw malformed(`unknown format version ${version} (this server reads ${CIPHERTEXT_FORMAT_VERSION})`);
  }
  const info = algorithmByCode(bytes[21] ?? 0);
  if (!info) throw malformed(`unknown algorithm code ${bytes[21]}`);
  const shape = shapeOf(info.id);
  if (!shape) throw malformed(`${info.id} keys do not produce ciphertexts`);
  let offset = HEADER_BYTES;
  const readField = (name: string, expected: number): Buffer => {
    const length = bytes[offset];
    if (length === undefined) throw malformed(`truncated before the ${name} length`);
    if (length !== expected) throw malformed(`${info.id} needs a ${expected}-byte ${name}, got ${length}`);
    const field = bytes.subarray(offset + 1, offset + 1 + length);
    if (field.length !== length) throw malformed(`truncated ${name}`);
    offset += 1 + length;
    return field;
  };
  const iv = readField('IV', shape.iv);
  const tag = readField('tag', shape.tag);
  const ciphertext = bytes.subarray(offset);
  const problem = shape.check(ciphertext);
  if (problem) throw malformed(problem);
  return {
    keyId: bytesToUuid(bytes.subarray(1, 17)),
    keyVersion: bytes.readUInt32BE(17),
    algorithm: info.id,
    iv: Buffer.from(iv),
    tag: Buffer.from(tag),
    ciphertext: Buffer.from(ciphertext),
  };
}

export interface SealRequest extends CiphertextHeader {
  readonly algorithm: CipherAlgorithm;
  readonly key: Buffer;
  readonly plaintext: Buffer;
  readonly aad?: Buffer;
}

/** AES-GCM / SM4-GCM under a key version, straight into an envelope string. */
export function sealEnvelope(request: SealRequest): string {
  const header = headerBytes(request);
  const sealed = symmetricEncrypt(request.algorithm, request.key, request.plaintext, {
    aad: request.aad ? Buffer.concat([header, request.aad]) : header,
  });
  // GCM always yields a 12-byte IV and a 16-byte tag: the layout needs no further checks.
  return assemble(header, sealed);
}

/** Finds the key an envelope names: the caller checks the key's state and permissions here. */
export type EnvelopeKeyLookup = (header: CiphertextHeader) => Buffer;

export interface OpenedEnvelope extends CiphertextHeader {
  readonly plaintext: Buffer;
}

export function openEnvelope(text: string, lookupKey: EnvelopeKeyLookup, aad?: Buffer): OpenedEnvelope {
  const envelope = parseCiphertext(text);
  const { algorithm } = envelope;
  if (!isCipherAlgorithm(algorithm)) {
    throw invalidInput(`${algorithm} ciphertexts are opened with the private key, not as an envelope`);
  }
  const header: CiphertextHeader = { keyId: envelope.keyId, keyVersion: envelope.keyVersion, algorithm };
  const plaintext = symmetricDecrypt(algorithm, lookupKey(header), envelope, envelopeAad(header, aad));
  return { ...header, plaintext };
}
