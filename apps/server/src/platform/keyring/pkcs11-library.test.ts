import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedLibrary } from './pkcs11-library.js';
import { RootUnavailable } from './root-of-trust.js';

const reasonOf = (work: () => unknown) => {
  try {
    work();
  } catch (err) {
    if (err instanceof RootUnavailable) return err.reason;
    throw err;
  }
  return 'allowed';
};

describe('which PKCS#11 libraries may be loaded (KSP_PKCS11_DIRS)', () => {
  let base: string;
  let allowed: string;
  let outside: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'ksp-p11-'));
    allowed = join(base, 'allowed');
    outside = join(base, 'outside');
    mkdirSync(join(allowed, 'vendor'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(allowed, 'lib.so'), 'x');
    writeFileSync(join(allowed, 'vendor', 'lib.so'), 'x');
    writeFileSync(join(outside, 'evil.so'), 'x');
    // A link inside the allowed directory to a file outside it, and one to a file inside.
    symlinkSync(join(outside, 'evil.so'), join(allowed, 'escape.so'));
    symlinkSync(join(allowed, 'lib.so'), join(allowed, 'inner.so'));
    // A link to the allowed directory, named in the setting instead of the directory.
    symlinkSync(allowed, join(base, 'alias'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('loads a library inside an allowed directory, also in a subdirectory, as its real path', () => {
    expect(allowedLibrary(join(allowed, 'lib.so'), [allowed])).toBe(join(allowed, 'lib.so'));
    expect(allowedLibrary(join(allowed, 'vendor', 'lib.so'), [allowed])).toBe(
      join(allowed, 'vendor', 'lib.so'),
    );
    expect(allowedLibrary(join(allowed, 'inner.so'), [allowed])).toBe(join(allowed, 'lib.so'));
    expect(allowedLibrary(join(base, 'alias', 'lib.so'), [join(base, 'alias')])).toBe(
      join(allowed, 'lib.so'),
    );
  });

  it('refuses a library outside them, after resolving `..` and symlinks', () => {
    expect(reasonOf(() => allowedLibrary(join(outside, 'evil.so'), [allowed]))).toBe('hsm.libraryNotAllowed');
    expect(reasonOf(() => allowedLibrary(`${allowed}/../outside/evil.so`, [allowed]))).toBe(
      'hsm.libraryNotAllowed',
    );
    expect(reasonOf(() => allowedLibrary(join(allowed, 'escape.so'), [allowed]))).toBe(
      'hsm.libraryNotAllowed',
    );
    // The directory itself, a relative path, and any path when none is allowed.
    expect(reasonOf(() => allowedLibrary(allowed, [allowed]))).toBe('hsm.libraryNotAllowed');
    expect(reasonOf(() => allowedLibrary('allowed/lib.so', [allowed]))).toBe('hsm.libraryNotAllowed');
    expect(reasonOf(() => allowedLibrary(join(allowed, 'lib.so'), []))).toBe('hsm.libraryNotAllowed');
    // A prefix of the name is not the directory.
    expect(reasonOf(() => allowedLibrary(`${allowed}-x/lib.so`, [allowed]))).toBe('hsm.libraryNotAllowed');
  });

  it('says a missing file cannot be loaded only inside an allowed directory', () => {
    expect(reasonOf(() => allowedLibrary(join(allowed, 'missing.so'), [allowed]))).toBe('hsm.library');
    expect(reasonOf(() => allowedLibrary(join(outside, 'missing.so'), [allowed]))).toBe(
      'hsm.libraryNotAllowed',
    );
  });
});
