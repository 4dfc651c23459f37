import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The protected file format (README.md "File format"), all integers big-endian:
 *
 * | bytes | field |
 * | --- | --- |
 * | 4 | magic `KSPE` |
 * | 1 | format version, 1 |
 * | 2 | length n of the key id |
 * | n | key id, UTF-8 |
 * | 4 | key version |
 * | 12 | IV (random per write) |
 * | … | AES-256-GCM ciphertext of the file |
 * | 16 | GCM tag |
 *
 * The whole header (magic to IV) is the GCM additional data, so a changed key id or version fails.
 */
export const MAGIC = Buffer.from('KSPE', 'ascii');
export const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Header {
  keyId: string;
  keyVersion: number;
  iv: Buffer;
  /** Bytes of the header (the GCM additional data). */
  length: number;
}

export function isProtected(data: Buffer): boolean {
  return data.length >= MAGIC.length && data.subarray(0, MAGIC.length).equals(MAGIC);
}

/** Reads the header, or throws when the data is not a well-formed protected file. */
export function readHeader(data: Buffer): Header {
  if (!isProtected(data)) throw new Error('not a protected file');
  if (data.length < 7) throw new Error('truncated header');
  const version = data.readUInt8(4);
  if (version !== FORMAT_VERSION) throw new Error(`unknown format version ${version}`);
  const idLength = data.readUInt16BE(5);
  const length = 7 + idLength + 4 + IV_BYTES;
  if (data.length < length + TAG_BYTES) throw new Error('truncated file');
  return {
    keyId: data.subarray(7, 7 + idLength).toString('utf8'),
    keyVersion: data.readUInt32BE(7 + idLength),
    iv: Buffer.from(data.subarray(7 + idLength + 4, length)),
    length,
  };
}

/** Encrypts `plain` with the 32-byte `key` into the protected format. */
export function encryptFile(plain: Buffer, key: Buffer, keyId: string, keyVersion: number): Buffer {
  const id = Buffer.from(keyId, 'utf8');
  const iv = randomBytes(IV_BYTES);
  const head = Buffer.alloc(7 + id.length + 4);
  MAGIC.copy(head, 0);
  head.writeUInt8(FORMAT_VERSION, 4);
  head.writeUInt16BE(id.length, 5);
  id.copy(head, 7);
  head.writeUInt32BE(keyVersion, 7 + id.length);
  const header = Buffer.concat([head, iv]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, body, cipher.getAuthTag()]);
}

/** Decrypts a protected file with the key its header names (`keyOf` finds it). */
export function decryptFile(
  data: Buffer,
  keyOf: (id: string, version: number) => Buffer | undefined,
): Buffer {
  const header = readHeader(data);
  const key = keyOf(header.keyId, header.keyVersion);
  if (!key) throw new Error(`key ${header.keyId} version ${header.keyVersion} is not available`);
  const decipher = createDecipheriv('aes-256-gcm', key, header.iv);
  decipher.setAAD(data.subarray(0, header.length));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(data.subarray(header.length, data.length - TAG_BYTES)),
    decipher.final(),
  ]);
}
