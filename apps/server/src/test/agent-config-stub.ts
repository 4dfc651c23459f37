/**
 * Tests only: an `agentConfig` service standing in for the TDE client module (which composes
 * the real document from guard points, policies and keys). A test sets a client's document and
 * raises the epoch; the stub answers it with the keys wrapped to the client's certificate as
 * contracts/agent.ts says. One file on purpose: once the TDE client module is merged, tests may
 * provide the real service instead and this file can go.
 */
import {
  constants,
  createECDH,
  createCipheriv,
  createPublicKey,
  hkdfSync,
  publicEncrypt,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import type { AgentConfig, AgentGuardPoint, AgentKey, AgentProfile } from '@ksp/contracts';
import { clientConfigEpoch, type AgentConfigSource } from '../platform/agent-config.js';

/** A key as a test gives it: its bytes in clear (the stub wraps them per client). */
export interface StubKey {
  id: string;
  name: string;
  version: number;
  bytes: Buffer;
}

export interface StubDocument {
  profile?: AgentProfile | null;
  guard_points: AgentGuardPoint[];
  keys: StubKey[];
}

/** Wraps `bytes` to the public key of `certPem` (RSA-OAEP-256 or ECDH-ES+A256GCM on P-256). */
export function wrapToCertificate(certPem: string, key: StubKey): AgentKey {
  const pub = new X509Certificate(certPem).publicKey;
  const base = { id: key.id, name: key.name, version: key.version, algorithm: 'AES-256' as const };
  if (pub.asymmetricKeyType === 'rsa') {
    const wrapped = publicEncrypt(
      { key: pub, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      key.bytes,
    );
    return { ...base, alg: 'RSA-OAEP-256', wrapped: wrapped.toString('base64') };
  }
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const jwk = pub.export({ format: 'jwk' });
  const peer = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  const shared = ecdh.computeSecret(peer);
  const kek = Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), 'ksp-agent-key-wrap-v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(`${key.id}:${key.version}`, 'utf8'));
  const wrapped = Buffer.concat([cipher.update(key.bytes), cipher.final()]);
  const epk = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: ecdh.getPublicKey().subarray(1, 33).toString('base64url'),
      y: ecdh.getPublicKey().subarray(33).toString('base64url'),
    },
    format: 'jwk',
  }).export({ type: 'spki', format: 'der' });
  return {
    ...base,
    alg: 'ECDH-ES+A256GCM',
    wrapped: wrapped.toString('base64'),
    epk: epk.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

/** The stub service and the setter tests use (raise the epoch with `bumpClientConfig` after). */
export function stubAgentConfig() {
  const documents = new Map<string, StubDocument>();
  const source: AgentConfigSource = {
    async configFor(db, client): Promise<AgentConfig> {
      const version = await clientConfigEpoch(db, client.domain_id);
      const doc = documents.get(client.id);
      return {
        client_id: client.id,
        version,
        profile: doc?.profile ?? null,
        guard_points: doc?.guard_points ?? [],
        keys: (doc?.keys ?? []).map((k) => wrapToCertificate(client.cert_pem, k)),
      };
    },
  };
  return {
    source,
    set(clientId: string, doc: StubDocument) {
      documents.set(clientId, doc);
    },
  };
}
