import {
  constants,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  privateDecrypt,
  type KeyObject,
} from 'node:crypto';
import type { AgentKey } from '@ksp/contracts';

/** The info string of the ECDH-ES key derivation (contracts/agent.ts). */
export const WRAP_INFO = 'ksp-agent-key-wrap-v1';

/**
 * Unwraps a key the server wrapped to this agent's certificate (contracts/agent.ts `AgentKey`):
 * RSA-OAEP-256, or ECDH-ES with an ephemeral P-256 key, HKDF-SHA-256 and AES-256-GCM.
 * The key exists in clear only in this process's memory.
 */
export function unwrapKey(key: AgentKey, privateKey: KeyObject): Buffer {
  const wrapped = Buffer.from(key.wrapped, 'base64');
  let bytes: Buffer;
  if (key.alg === 'RSA-OAEP-256') {
    bytes = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      wrapped,
    );
  } else if (key.alg === 'ECDH-ES+A256GCM') {
    if (!key.epk || !key.iv || !key.tag) throw new Error(`key ${key.id}: epk, iv and tag are required`);
    const epk = createPublicKey({ key: Buffer.from(key.epk, 'base64'), format: 'der', type: 'spki' });
    const shared = diffieHellman({ privateKey, publicKey: epk });
    const kek = Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), WRAP_INFO, 32));
    const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(key.iv, 'base64'));
    decipher.setAAD(Buffer.from(`${key.id}:${key.version}`, 'utf8'));
    decipher.setAuthTag(Buffer.from(key.tag, 'base64'));
    bytes = Buffer.concat([decipher.update(wrapped), decipher.final()]);
  } else {
    throw new Error(`key ${key.id}: unknown wrapping ${String(key.alg)}`);
  }
  if (bytes.length !== 32) throw new Error(`key ${key.id}: not an AES-256 key`);
  return bytes;
}
