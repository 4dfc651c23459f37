import {
  constants,
  createCipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  publicEncrypt,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import type { AgentKey } from '@ksp/contracts';

/** The HKDF info of the ECDH-ES key wrap (contracts/agent.ts). */
export const AGENT_KEY_WRAP_INFO = 'ksp-agent-key-wrap-v1';

/**
 * Wraps a key's bytes to the public key of an agent's certificate, exactly as
 * contracts/agent.ts documents: RSA-OAEP-256 for RSA certificates, ECDH-ES+A256GCM for EC
 * P-256 ones. Undefined for any other key type (the agent then receives no key).
 */
export function wrapForAgent(
  certPem: string,
  key: { id: string; name: string; version: number; material: Buffer },
): AgentKey | undefined {
  const publicKey = createPublicKey(
    new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'pem' }),
  );
  const base = { id: key.id, name: key.name, version: key.version, algorithm: 'AES-256' as const };
  if (publicKey.asymmetricKeyType === 'rsa') {
    const wrapped = publicEncrypt(
      { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      key.material,
    );
    return { ...base, alg: 'RSA-OAEP-256', wrapped: wrapped.toString('base64') };
  }
  if (publicKey.asymmetricKeyType === 'ec' && publicKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey });
    const kek = Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), AGENT_KEY_WRAP_INFO, 32));
    shared.fill(0);
    const iv = randomBytes(12);
    try {
      const cipher = createCipheriv('aes-256-gcm', kek, iv);
      cipher.setAAD(Buffer.from(`${key.id}:${key.version}`, 'utf8'));
      const wrapped = Buffer.concat([cipher.update(key.material), cipher.final()]);
      return {
        ...base,
        alg: 'ECDH-ES+A256GCM',
        wrapped: wrapped.toString('base64'),
        epk: ephemeral.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    } finally {
      kek.fill(0);
    }
  }
  return undefined;
}
