import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { RootUnavailable } from './root-of-trust.js';

/**
 * The directories a PKCS#11 library may be loaded from when KSP_PKCS11_DIRS is not set:
 * where Debian and Ubuntu install PKCS#11 modules (SoftHSM2's `/usr/lib/softhsm` links into
 * the multiarch `softhsm` directory, so both are listed), for x86-64 and ARM64.
 */
export const DEFAULT_PKCS11_DIRS: readonly string[] = [
  '/usr/lib/softhsm',
  '/usr/lib/pkcs11',
  '/usr/lib/x86_64-linux-gnu/softhsm',
  '/usr/lib/x86_64-linux-gnu/pkcs11',
  '/usr/lib/aarch64-linux-gnu/softhsm',
  '/usr/lib/aarch64-linux-gnu/pkcs11',
];

const within = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
};

/** A directory as the file system names it (symlinks resolved); itself when it does not exist. */
function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * A PKCS#11 library is code loaded into this process: only a file inside one of the
 * directories the operator allowed (KSP_PKCS11_DIRS) may be loaded. The path is resolved
 * (`..` and every symlink) first, so a link inside an allowed directory pointing elsewhere is
 * refused; a path that does not exist is "cannot be loaded" only inside an allowed directory
 * (elsewhere it is refused alike, so the answer tells nothing of files outside them).
 * Answers the resolved path to load.
 */
export function allowedLibrary(library: string, dirs: readonly string[]): string {
  const refuse = () =>
    new RootUnavailable('hsm.libraryNotAllowed', {
      library,
      dirs: dirs.length > 0 ? dirs.join(':') : '-',
    });
  if (!isAbsolute(library)) throw refuse();
  const lexical = resolve(library);
  const allowed = dirs.map(realDir);
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch {
    if (dirs.some((d) => within(lexical, resolve(d))) || allowed.some((d) => within(lexical, d)))
      throw new RootUnavailable('hsm.library', { library });
    throw refuse();
  }
  if (!allowed.some((d) => within(real, d))) throw refuse();
  return real;
}
