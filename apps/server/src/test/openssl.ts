import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs openssl in `cwd`; its error output is the thrown message. */
export function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** The openssl `req` arguments of a new, unencrypted EC P-256 key written to `keyFile`. */
export function newEcKey(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile];
}

/**
 * A self-signed EC P-256 certificate for `/CN=cn`, written with its key to `dir`; `addext`: one
 * more extension (`subjectAltName=IP:127.0.0.1`).
 */
export function selfSignedEc(
  dir: string,
  files: { key: string; cert: string; cn: string; days: number; addext?: string },
): void {
  openssl(
    [
      'req',
      '-x509',
      ...newEcKey(files.key),
      '-out',
      files.cert,
      '-days',
      String(files.days),
      '-subj',
      `/CN=${files.cn}`,
      ...(files.addext ? ['-addext', files.addext] : []),
    ],
    dir,
  );
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
  openssl(['req', ...newEcKey(`${name}.key`), '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
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
