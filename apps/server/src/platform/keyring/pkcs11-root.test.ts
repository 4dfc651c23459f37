import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOFTHSM_MODULE, createEmptyTestToken, type TestToken } from '../../test/softhsm.js';
import { DEFAULT_PKCS11_DIRS } from './pkcs11-library.js';
import { Pkcs11Root } from './pkcs11-root.js';
import { RootUnavailable } from './root-of-trust.js';

const reasonOf = (work: () => unknown) => {
  try {
    work();
  } catch (err) {
    if (err instanceof RootUnavailable) return { reason: err.reason, params: err.params };
    throw err;
  }
  throw new Error('did not fail');
};

describe('the PKCS#11 root of trust on a SoftHSM2 token', () => {
  let token: TestToken;
  const settings = (over: Partial<ConstructorParameters<typeof Pkcs11Root>[0]> = {}) =>
    new Pkcs11Root({
      library: SOFTHSM_MODULE,
      allowedDirs: DEFAULT_PKCS11_DIRS,
      label: token.label,
      pin: '123456',
      keyLabel: 'root-a',
      ...over,
    });

  beforeAll(() => {
    token = createEmptyTestToken('123456');
    process.env.SOFTHSM2_CONF = token.conf;
  });
  afterAll(() => token?.remove());

  it('wraps inside the token: a blob that only the same key opens, bound to the root key purpose', () => {
    const root = randomBytes(32);
    const wrapping = settings().wrap(root);
    expect(wrapping.fingerprint).toBeNull();
    expect(wrapping.wrapped).toMatch(/^p11gcm1:/);
    expect(Buffer.from(wrapping.wrapped.slice(8), 'base64').includes(root)).toBe(false);
    expect(settings().unwrap(wrapping).equals(root)).toBe(true);
    // Two wrappings of one root differ (random IV).
    expect(settings().wrap(root).wrapped).not.toBe(wrapping.wrapped);

    // Another key on the same token does not open it; a missing key is named.
    settings({ keyLabel: 'root-b' }).roundTrip(true);
    expect(reasonOf(() => settings({ keyLabel: 'root-b' }).unwrap(wrapping))).toEqual({
      reason: 'hsm.unwrapFailed',
      params: {},
    });
    expect(reasonOf(() => settings({ keyLabel: 'root-c' }).unwrap(wrapping))).toEqual({
      reason: 'hsm.keyMissing',
      params: { key: 'root-c' },
    });
    // A tampered blob fails the GCM tag.
    const raw = Buffer.from(wrapping.wrapped.slice(8), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(
      reasonOf(() => settings().unwrap({ wrapped: `p11gcm1:${raw.toString('base64')}`, fingerprint: null }))
        .reason,
    ).toBe('hsm.unwrapFailed');
  });

  it('finds the token by serial, and names what is wrong: library, token, PIN', () => {
    const facts = settings().roundTrip(false);
    expect(facts).toMatchObject({ label: token.label, key_sensitive: true, key_extractable: false });
    expect(settings({ label: null, serial: facts.serial }).roundTrip(false).serial).toBe(facts.serial);
    expect(
      reasonOf(() => settings({ library: '/nowhere/lib.so', allowedDirs: ['/nowhere'] }).roundTrip(false)),
    ).toEqual({
      reason: 'hsm.library',
      params: { library: '/nowhere/lib.so' },
    });
    // The real SoftHSM2 library, but its directory not allowed: not loaded at all.
    expect(reasonOf(() => settings({ allowedDirs: ['/opt/vendor'] }).roundTrip(false))).toEqual({
      reason: 'hsm.libraryNotAllowed',
      params: { library: SOFTHSM_MODULE, dirs: '/opt/vendor' },
    });
    expect(reasonOf(() => settings({ label: null, serial: 'ffff0000' }).roundTrip(false))).toEqual({
      reason: 'hsm.tokenAbsent',
      params: { token: 'ffff0000' },
    });
    expect(reasonOf(() => settings({ pin: '654321' }).roundTrip(false))).toEqual({
      reason: 'hsm.pinRefused',
      params: { token: facts.serial, detail: 'CKR_PIN_INCORRECT' },
    });
  });
});
