import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { api, LICENSE_PREFIX, licenseFeatures, type LicensePayload } from '@ksp/contracts';
import {
  call,
  initialize,
  startServer,
  type EngineName,
  type StartOptions,
  type TestServer,
} from './harness.js';

/**
 * A licence signing key pair made for one test run (the vendor's private key is never in the
 * repository): start the server with `KSP_LICENSE_TEST_PUBLIC_KEY: pair.publicKeyBase64`.
 */
export function testLicenseKeys(): { privateKey: KeyObject; publicKeyBase64: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKeyBase64: publicKey.export({ format: 'jwk' }).x! };
}

/** A licence text as tools/license-mint.ts makes it: `KSP1.<payload>.<signature>`. */
export function mintLicense(
  payload: LicensePayload | Record<string, unknown>,
  privateKey: KeyObject,
): string {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const signature = sign(null, bytes, privateKey);
  return `${LICENSE_PREFIX}.${bytes.toString('base64url')}.${signature.toString('base64url')}`;
}

/**
 * Activates a licence with room for every feature on a server started with `keys`' public half,
 * for suites that make more objects than the community limits allow (the Wycheproof vectors
 * import thousands of keys).
 */
export async function licenseEverything(
  server: TestServer,
  token: string,
  keys: ReturnType<typeof testLicenseKeys>,
  /** How long it stays valid, for suites that move their clock on. */
  days = 1,
): Promise<void> {
  const { data } = await call(server, api.license.lockdata, { token });
  const now = Date.now();
  const activated = await call(server, api.license.activate, {
    token,
    body: {
      license: mintLicense(
        {
          id: `TEST-${now}`,
          customer: 'KSP test suite',
          lock_code: data.lock_code,
          bind_type: 'instance',
          features: Object.fromEntries(licenseFeatures.map((feature) => [feature, 1_000_000_000])),
          not_before: new Date(now - 86_400_000).toISOString(),
          not_after: new Date(now + days * 86_400_000).toISOString(),
          issued_at: new Date(now - 86_400_000).toISOString(),
        },
        keys.privateKey,
      ),
    },
  });
  if (activated.code !== 0) throw new Error(`licence: ${activated.msg}`);
}

/**
 * A server on `engine` that trusts `keys` (KSP_LICENSE_TEST_PUBLIC_KEY), with the further
 * environment `options.env`, its app built as the rest of `options` says, initialized and
 * licensed for everything: the server and the first administrator's token. The caller closes it.
 */
export async function licensedServer(
  engine: EngineName,
  keys: ReturnType<typeof testLicenseKeys>,
  options: StartOptions & { env?: Record<string, string> } = {},
): Promise<{ server: TestServer; token: string }> {
  const { env, ...start } = options;
  const server = await startServer(
    engine,
    { KSP_LICENSE_TEST_PUBLIC_KEY: keys.publicKeyBase64, ...env },
    undefined,
    undefined,
    start,
  );
  const { token } = await initialize(server);
  await licenseEverything(server, token, keys);
  return { server, token };
}
