import { constants, createHash, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import {
  CLIENT_LOG_AUDIENCE,
  CLIENT_LOG_CLOCK_SKEW_SECONDS,
  CLIENT_LOG_TOKEN_MAX_SECONDS,
} from '@ksp/contracts';

/**
 * The upload's own authentication (docs/agent-log-upload.md): a compact JWS in
 * `Authorization: Agent <JWS>`, signed by the key of the agent's client certificate, which
 * rides in the `x5c` header. Plain node:crypto: the few algorithms a certificate key allows
 * need no library.
 */

/** Why an upload was refused: the message key is `clientLog.auth.<reason>`. */
export type AgentAuthFailure =
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'certificate'
  | 'signature'
  | 'unknownCa'
  | 'certValidity'
  | 'revoked'
  | 'notClient'
  | 'audience'
  | 'lifetime'
  | 'expired'
  | 'jti'
  | 'replay'
  | 'bodyHash';

export class AgentAuthError extends Error {
  constructor(readonly reason: AgentAuthFailure) {
    super(reason);
    this.name = 'AgentAuthError';
  }
}

/** The agent token as read, before anything in it is trusted. */
export interface AgentToken {
  alg: string;
  /** The client certificate (DER) and the chain the agent sent after it (ignored). */
  certificate: Buffer;
  claims: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;
/** A header far beyond any certificate chain is refused before it is decoded. */
const MAX_TOKEN_CHARS = 64 * 1024;

function decodeJson(part: string): Record<string, unknown> {
  if (!B64URL.test(part)) throw new AgentAuthError('malformed');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new AgentAuthError('malformed');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new AgentAuthError('malformed');
  return value as Record<string, unknown>;
}

/** Reads `Authorization: Agent <header>.<payload>.<signature>`. */
export function parseAgentToken(authorization: string | undefined): AgentToken {
  if (!authorization) throw new AgentAuthError('missing');
  const match = /^Agent\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AgentAuthError('missing');
  const compact = match[1]!;
  if (compact.length > MAX_TOKEN_CHARS) throw new AgentAuthError('malformed');
  const parts = compact.split('.');
  if (parts.length !== 3) throw new AgentAuthError('malformed');
  const [head, body, sig] = parts as [string, string, string];
  const header = decodeJson(head);
  const claims = decodeJson(body);
  if (!B64URL.test(sig) || sig.length === 0) throw new AgentAuthError('malformed');
  if (typeof header.alg !== 'string') throw new AgentAuthError('malformed');
  // Only the claims of this specification are understood; a critical extension is refused.
  if (header.crit !== undefined) throw new AgentAuthError('malformed');
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || typeof x5c[0] !== 'string')
    throw new AgentAuthError('certificate');
  // x5c is standard Base64 (RFC 7515 §4.1.6), not base64url.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(x5c[0])) throw new AgentAuthError('certificate');
  return {
    alg: header.alg,
    certificate: Buffer.from(x5c[0], 'base64'),
    claims,
    signingInput: Buffer.from(`${head}.${body}`, 'ascii'),
    signature: Buffer.from(sig, 'base64url'),
  };
}

/** The JWS algorithms a key allows (RFC 7518), and how node:crypto verifies each. */
function verifierOf(alg: string, key: KeyObject): ((data: Buffer, sig: Buffer) => boolean) | null {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const byCurve: Record<string, [string, string]> = {
      prime256v1: ['ES256', 'sha256'],
      'P-256': ['ES256', 'sha256'],
      secp384r1: ['ES384', 'sha384'],
      'P-384': ['ES384', 'sha384'],
      secp521r1: ['ES512', 'sha512'],
      'P-521': ['ES512', 'sha512'],
    };
    const suited = curve ? byCurve[curve] : undefined;
    if (!suited || suited[0] !== alg) return null;
    return (data, sig) => verify(suited[1], data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  }
  if (type === 'rsa') {
    const rsa: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };
    // PS*: salt as long as the hash (RFC 7518 §3.5).
    const pss: Record<string, [string, number]> = {
      PS256: ['sha256', 32],
      PS384: ['sha384', 48],
      PS512: ['sha512', 64],
    };
    const hash = rsa[alg];
    if (hash) return (data, sig) => verify(hash, data, key, sig);
    const salted = pss[alg];
    if (salted)
      return (data, sig) =>
        verify(
          salted[0],
          data,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: salted[1] },
          sig,
        );
    return null;
  }
  if (type === 'ed25519' || type === 'ed448') {
    if (alg !== 'EdDSA') return null;
    return (data, sig) => verify(null, data, key, sig);
  }
  return null;
}

/** Checks the signature with the certificate's public key (SubjectPublicKeyInfo DER). */
export function checkSignature(token: AgentToken, spki: Buffer): void {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new AgentAuthError('algorithm');
  }
  const verifier = verifierOf(token.alg, key);
  if (!verifier) throw new AgentAuthError('algorithm');
  let ok: boolean;
  try {
    ok = verifier(token.signingInput, token.signature);
  } catch {
    // A signature of the wrong length or encoding is a wrong signature.
    ok = false;
  }
  if (!ok) throw new AgentAuthError('signature');
}

export interface CheckedClaims {
  jti: string;
  /** When the token stops being valid (ms): its id is kept until then plus the skew. */
  expiresAt: number;
}

/** aud, iat, exp (at most 300 s apart, valid now within the skew), jti, and the body hash. */
export function checkClaims(claims: Record<string, unknown>, body: Buffer, now: number): CheckedClaims {
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(CLIENT_LOG_AUDIENCE)) throw new AgentAuthError('audience');
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp))
    throw new AgentAuthError('lifetime');
  const skew = CLIENT_LOG_CLOCK_SKEW_SECONDS;
  const seconds = now / 1000;
  if (exp <= iat || exp - iat > CLIENT_LOG_TOKEN_MAX_SECONDS || iat > seconds + skew)
    throw new AgentAuthError('lifetime');
  if (exp + skew <= seconds) throw new AgentAuthError('expired');
  const jti = claims.jti;
  if (typeof jti !== 'string' || jti.length < 8 || jti.length > 128) throw new AgentAuthError('jti');
  const bh = claims.bh;
  const digest = createHash('sha256').update(body).digest();
  const given = typeof bh === 'string' && B64URL.test(bh) ? Buffer.from(bh, 'base64url') : Buffer.alloc(0);
  if (given.length !== digest.length || !timingSafeEqual(given, digest)) throw new AgentAuthError('bodyHash');
  return { jti, expiresAt: (exp + skew) * 1000 };
}
