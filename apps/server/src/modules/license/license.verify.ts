import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { LICENSE_PREFIX, LicensePayload } from '@ksp/contracts';

/**
 * The vendor's Ed25519 public key (base64url of its 32 raw bytes): licences it signed are the
 * only ones a production server accepts. The private half never ships with the product.
 */
export const VENDOR_PUBLIC_KEY = 'mun5iH0fPCNHnLdW5_2BvqAFVONze6k1Dim_o596JJ8';

/** An Ed25519 public key from the base64 (or base64url) of its 32 raw bytes. */
export function ed25519PublicKey(raw: string): KeyObject {
  const x = Buffer.from(raw, 'base64url');
  if (x.length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: x.toString('base64url') }, format: 'jwk' });
}

/**
 * The lock code of an installation: 20 hex digits of SHA-256 over its install id, in groups
 * of four. Every node of one database shows the same code.
 */
export function lockCodeOf(installId: string): string {
  const hex = createHash('sha256')
    .update(`ksp-lock-code:${installId}`)
    .digest('hex')
    .slice(0, 20)
    .toUpperCase();
  return hex.match(/.{4}/g)!.join('-');
}

export type Verdict =
  | { ok: true; payload: LicensePayload; text: string }
  | { ok: false; problem: 'malformed'; reason: string }
  | { ok: false; problem: 'badSignature' };

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Reads a licence text `KSP1.<payload>.<signature>` (whitespace anywhere is ignored: pasted
 * text may be wrapped) and checks its signature with the trusted keys before reading it.
 */
export function readLicense(input: string, trusted: readonly KeyObject[]): Verdict {
  const text = input.replace(/\s+/g, '');
  const parts = text.split('.');
  if (parts.length !== 3 || parts[0] !== LICENSE_PREFIX)
    return { ok: false, problem: 'malformed', reason: `expected ${LICENSE_PREFIX}.<payload>.<signature>` };
  const [, body, sig] = parts as [string, string, string];
  if (!B64URL.test(body) || !B64URL.test(sig))
    return { ok: false, problem: 'malformed', reason: 'not base64url' };
  const payloadBytes = Buffer.from(body, 'base64url');
  const signature = Buffer.from(sig, 'base64url');
  if (signature.length !== 64)
    return { ok: false, problem: 'malformed', reason: 'the signature is not 64 bytes' };
  if (!trusted.some((key) => verify(null, payloadBytes, key, signature)))
    return { ok: false, problem: 'badSignature' };
  let json: unknown;
  try {
    json = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    return { ok: false, problem: 'malformed', reason: 'the payload is not JSON' };
  }
  const parsed = LicensePayload.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      problem: 'malformed',
      reason: `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  return { ok: true, payload: parsed.data, text };
}
