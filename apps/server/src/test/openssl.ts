import { spawnSync } from 'node:child_process';

/** Runs openssl in `cwd`; its error output is the thrown message. */
export function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** The openssl `req` arguments of a new, unencrypted EC P-256 key written to `keyFile`. */
export function newEcKey(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile];
}

/** A self-signed EC P-256 certificate for `/CN=cn`, written with its key to `dir`. */
export function selfSignedEc(
  dir: string,
  files: { key: string; cert: string; cn: string; days: number },
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
    ],
    dir,
  );
}
