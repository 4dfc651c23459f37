import { createHash, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import {
  compactVerify,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type ProtectedHeaderParameters,
} from 'jose';
import {
  CLIENT_LOG_AUDIENCE,
  CLIENT_LOG_CLOCK_SKEW_SECONDS,
  CLIENT_LOG_TOKEN_MAX_SECONDS,
} from '@ksp/contracts';

/**
 * The upload's own authentication (docs/agent-log-upload.md): a compact JWS in
 * `Authorization: Agent <JWS>`, signed by the key of the agent's client certificate, which
 * rides in the `x5c` header. jose decodes and verifies the JWS (standard algorithms only);
 * the claims and their limits are this specification's own.
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
  /** The compact JWS itself, verified as a whole by jose. */
  compact: string;
  alg: string;
  /** The client certificate (DER) and the chain the agent sent after it (ignored). */
  certificate: Buffer;
  claims: Record<string, unknown>;
}

/** Three base64url parts, none empty (a JWS compact serialization, RFC 7515 §7.1). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const B64URL = /^[A-Za-z0-9_-]*$/;
/** A header far beyond any certificate chain is refused before it is decoded. */
const MAX_TOKEN_CHARS = 64 * 1024;

/** Reads `Authorization: Agent <header>.<payload>.<signature>`. */
export function parseAgentToken(authorization: string | undefined): AgentToken {
  if (!authorization) throw new AgentAuthError('missing');
  const match = /^Agent\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AgentAuthError('missing');
  const compact = match[1]!;
  if (compact.length > MAX_TOKEN_CHARS || !COMPACT_JWS.test(compact)) throw new AgentAuthError('malformed');
  let header: ProtectedHeaderParameters;
  let claims: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(compact);
    claims = decodeJwt(compact);
  } catch {
    throw new AgentAuthError('malformed');
  }
  if (typeof header.alg !== 'string') throw new AgentAuthError('malformed');
  // Only the claims of this specification are understood; a critical extension is refused.
  if (header.crit !== undefined) throw new AgentAuthError('malformed');
  const x5c: unknown = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || typeof x5c[0] !== 'string')
    throw new AgentAuthError('certificate');
  // x5c is standard Base64 (RFC 7515 §4.1.6), not base64url.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(x5c[0])) throw new AgentAuthError('certificate');
  return { compact, alg: header.alg, certificate: Buffer.from(x5c[0], 'base64'), claims };
}

const EC_ALGORITHMS: Record<string, string> = {
  prime256v1: 'ES256',
  'P-256': 'ES256',
  secp384r1: 'ES384',
  'P-384': 'ES384',
  secp521r1: 'ES512',
  'P-521': 'ES512',
};
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];

/** The JWS algorithms (RFC 7518) a key allows: one per EC curve, any RSA one, EdDSA for Ed25519. */
function algorithmsOf(key: KeyObject): string[] {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const alg = curve ? EC_ALGORITHMS[curve] : undefined;
    return alg ? [alg] : [];
  }
  if (type === 'rsa') return RSA_ALGORITHMS;
  if (type === 'ed25519') return ['EdDSA'];
  return [];
}

/**
 * Checks the signature with the certificate's public key (SubjectPublicKeyInfo DER): the
 * token's algorithm must suit the key, and jose verifies the JWS with that algorithm only.
 */
export async function checkSignature(token: AgentToken, spki: Buffer): Promise<void> {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new AgentAuthError('algorithm');
  }
  if (!algorithmsOf(key).includes(token.alg)) throw new AgentAuthError('algorithm');
  try {
    await compactVerify(token.compact, key, { algorithms: [token.alg] });
  } catch (err) {
    // A signature of the wrong length or encoding is a wrong signature; a key the algorithm
    // cannot use (an RSA modulus under 2048 bits, RFC 7518 §3.3) is a wrong algorithm.
    if (err instanceof errors.JWSSignatureVerificationFailed) throw new AgentAuthError('signature');
    if (err instanceof errors.JWSInvalid) throw new AgentAuthError('malformed');
    throw new AgentAuthError('algorithm');
  }
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
