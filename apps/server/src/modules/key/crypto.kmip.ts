import { createCipheriv, createDecipheriv } from 'node:crypto';
import { algorithmInfo, type AlgorithmId } from '@ksp/contracts';
import {
  asymmetricDecrypt,
  asymmetricEncrypt,
  type PrivateKeyInput,
} from '../../platform/crypto/asymmetric.js';
import { CryptoError } from '../../platform/crypto/crypto-error.js';
import { randomBytes } from '../../platform/crypto/random.js';
import type { KeyTable } from '../../platform/db/schema.js';
import { invalid, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';

/** A KMIP Encrypt or Decrypt (docs/kmip.md#encrypt-and-decrypt): the caller's mode, IV and tag. */
export interface KmipCipherRequest {
  key_id: string;
  mode: 'GCM' | 'CBC' | 'CTR' | 'OAEP';
  /** CBC only: PKCS#5 padding (default) or none (the data a multiple of 16 bytes). */
  padding: 'PKCS5' | 'None';
  data: Buffer;
  /** Encrypt: made by KSP when absent (and answered); decrypt: required. */
  iv?: Buffer | undefined;
  aad?: Buffer | undefined;
  /** GCM decrypt: the tag; GCM encrypt: its length in bytes (default 16). */
  tag?: Buffer | undefined;
  tagLength?: number | undefined;
}

export interface KmipCipherResult {
  data: Buffer;
  iv: Buffer | null;
  tag: Buffer | null;
  version: number;
}

type Op = 'encrypt' | 'decrypt';

/** What the crypto service lends this file: its key resolution, key access and audited run. */
export interface KmipCipherDeps {
  resolve(actor: Actor, keyId: string, op: Op, wantPrivate: boolean): Promise<KeyTable>;
  withSecret<T>(
    actor: Actor,
    row: KeyTable,
    version: number,
    use: (secret: Buffer) => Promise<T>,
  ): Promise<T>;
  withKey<T>(
    actor: Actor,
    row: KeyTable,
    version: number,
    use: (key: PrivateKeyInput) => Promise<T>,
  ): Promise<T>;
  publicOf(row: KeyTable, version: number): Promise<Buffer>;
  run<T>(
    actor: Actor,
    meta: RequestMeta,
    op: Op,
    row: KeyTable,
    version: number,
    work: () => T | Promise<T>,
  ): Promise<T>;
}

const IV_BYTES = { GCM: 12, CBC: 16, CTR: 16 } as const;

function aes(op: Op, key: Buffer, request: KmipCipherRequest, iv: Buffer) {
  const name = `aes-${key.length * 8}-${request.mode.toLowerCase()}`;
  try {
    if (request.mode === 'GCM') {
      const tagLength = request.tagLength ?? 16;
      if (op === 'encrypt') {
        const cipher = createCipheriv(name as 'aes-256-gcm', key, iv, { authTagLength: tagLength });
        if (request.aad) cipher.setAAD(request.aad);
        const data = Buffer.concat([cipher.update(request.data), cipher.final()]);
        return { data, tag: cipher.getAuthTag() };
      }
      if (!request.tag)
        throw invalid('crypto.failed', {
          op,
          reason: 'GCM decryption needs the Authenticated Encryption Tag',
        });
      const decipher = createDecipheriv(name as 'aes-256-gcm', key, iv, {
        authTagLength: request.tag.length,
      });
      if (request.aad) decipher.setAAD(request.aad);
      decipher.setAuthTag(request.tag);
      return { data: Buffer.concat([decipher.update(request.data), decipher.final()]), tag: null };
    }
    const cipher = op === 'encrypt' ? createCipheriv(name, key, iv) : createDecipheriv(name, key, iv);
    if (request.mode === 'CBC') cipher.setAutoPadding(request.padding === 'PKCS5');
    return { data: Buffer.concat([cipher.update(request.data), cipher.final()]), tag: null };
  } catch (err) {
    if (op === 'decrypt' && request.mode === 'GCM')
      throw new CryptoError('authentication-failed', 'the tag does not match');
    throw new CryptoError('invalid-input', err instanceof Error ? err.message : String(err));
  }
}

/**
 * Encrypt and Decrypt as KMIP asks them: raw AES in GCM, CBC (PKCS#5 padding or none) or CTR
 * with the caller's IV (or one KSP makes and answers), and RSA-OAEP with SHA-256. The key's
 * state and usage are checked, and each operation audited and counted, exactly as the crypto
 * API's encrypt and decrypt do (`run`).
 */
export function createKmipCipher(deps: KmipCipherDeps) {
  return async function kmipCipher(
    actor: Actor,
    meta: RequestMeta,
    op: Op,
    request: KmipCipherRequest,
  ): Promise<KmipCipherResult> {
    const row = await deps.resolve(actor, request.key_id, op, op === 'decrypt');
    const algorithm = row.algorithm as AlgorithmId;
    const family = algorithmInfo(algorithm).family;
    const version = row.current_version;
    if (family === 'AES') {
      if (request.mode === 'OAEP')
        throw invalid('crypto.failed', {
          op,
          reason: 'OAEP padding is for RSA keys; AES takes GCM, CBC or CTR',
        });
      // A tag shorter than 96 bits makes forgeries too likely (NIST SP 800-38D): 12 to 16 bytes.
      const tagBytes = request.tag?.length ?? request.tagLength;
      if (request.mode === 'GCM' && tagBytes !== undefined && (tagBytes < 12 || tagBytes > 16))
        throw invalid('crypto.failed', { op, reason: 'GCM tags are 12 to 16 bytes' });
      const ivBytes = IV_BYTES[request.mode];
      const iv = request.iv ?? (op === 'encrypt' ? randomBytes(ivBytes) : undefined);
      if (!iv) throw invalid('crypto.failed', { op, reason: 'decryption needs the IV/Counter/Nonce' });
      if (request.mode !== 'GCM' && iv.length !== ivBytes)
        throw invalid('crypto.failed', { op, reason: `${request.mode} takes a ${ivBytes}-byte IV` });
      if (request.mode === 'GCM' && (iv.length < 1 || iv.length > 128))
        throw invalid('crypto.failed', { op, reason: 'GCM takes an IV of 1 to 128 bytes (12 is standard)' });
      const out = await deps.withSecret(actor, row, version, (key) =>
        deps.run(actor, meta, op, row, version, () => aes(op, key, request, iv)),
      );
      return { data: out.data, iv: request.iv ? null : iv, tag: out.tag, version };
    }
    if (family === 'RSA') {
      if (request.mode !== 'OAEP')
        throw invalid('crypto.failed', { op, reason: 'RSA keys encrypt with OAEP padding (SHA-256) only' });
      if (op === 'encrypt') {
        const pub = await deps.publicOf(row, version);
        const data = await deps.run(actor, meta, op, row, version, () =>
          asymmetricEncrypt(algorithm, pub, request.data),
        );
        return { data, iv: null, tag: null, version };
      }
      const data = await deps.withKey(actor, row, version, (key) =>
        deps.run(actor, meta, op, row, version, () => asymmetricDecrypt(algorithm, key, request.data)),
      );
      return { data, iv: null, tag: null, version };
    }
    throw stateForbids('crypto.wrongKeyType', { name: row.name, algorithm: row.algorithm, op });
  };
}
