import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { LICENSE_PREFIX, type LicensePayload } from '@ksp/contracts';

/**
 * A licence signing key pair made for one test run (the vendor's private key is never in the
 * repository): start the server with `KSP_LICENSE_TEST_PUBLIC_KEY: pair.publicKeyBase64`.
 */
export function testLicenseKeys(): { privateKey: KeyObject; publicKeyBase64: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKeyBase64: publicKey.export({ format: 'jwk' }).x! };
}

/** A licence text as scripts/license-mint.ts makes it: `KSP1.<payload>.<signature>`. */
export function mintLicense(
  payload: LicensePayload | Record<string, unknown>,
  privateKey: KeyObject,
): string {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const signature = sign(null, bytes, privateKey);
  return `${LICENSE_PREFIX}.${bytes.toString('base64url')}.${signature.toString('base64url')}`;
}
