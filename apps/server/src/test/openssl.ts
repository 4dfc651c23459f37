import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newEcKeyArgs, selfSignedEcArgs, type SelfSignedEc } from '@ksp/ukey-bridge/testing';

export { makeSelfSignedEc, newEcKeyArgs as newEcKey } from '@ksp/ukey-bridge/testing';

/** Runs openssl in `cwd`; its error output is the thrown message. */
export function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/**
 * Synchronously, the certificate `c` describes and its key, written to `dir`: for set-ups made
 * before any server of the test runs (otherwise `makeSelfSignedEc`).
 */
export function selfSignedEc(dir: string, c: SelfSignedEc): void {
  openssl(selfSignedEcArgs(c), dir);
}

/**
 * A new EC P-256 key `<name>.key` and its certificate `<name>.pem` for `/CN=cn`, signed by the CA
 * `ca.pem` / `ca.key` in `dir`, with the extensions `ext` (openssl extfile lines).
 */
export function caSignedEc(
  dir: string,
  files: { name: string; cn: string; ext: string; days: number },
): void {
  const { name, cn, ext, days } = files;
  openssl(['req', ...newEcKeyArgs(`${name}.key`), '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
  writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      String(days),
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}
