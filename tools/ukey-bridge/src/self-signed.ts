import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** A self-signed EC P-256 certificate to make with openssl, and where its files go. */
export interface SelfSignedEc {
  /** The new key's file (PEM), relative to `cwd` when given. */
  key: string;
  /** The certificate's file, relative to `cwd` when given. */
  cert: string;
  /** The subject is `/CN=cn`. */
  cn: string;
  days: number;
  /** subjectAltName entries, such as `IP:127.0.0.1`. */
  san?: string[];
  /** A critical basicConstraints CA:TRUE or CA:FALSE; left out, openssl's default (a CA). */
  ca?: boolean;
  /** The serial number as hex digits; left out, openssl picks a random one. */
  serial?: string;
  /** The certificate in DER rather than PEM. */
  der?: boolean;
  cwd?: string;
}

/** The openssl `req` arguments of a new, unencrypted EC P-256 key written to `keyFile`. */
export function newEcKeyArgs(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile];
}

/** The openssl arguments that make the certificate `c` describes. */
export function selfSignedEcArgs(c: SelfSignedEc): string[] {
  return [
    'req',
    '-x509',
    ...newEcKeyArgs(c.key),
    ...(c.der ? ['-outform', 'DER'] : []),
    '-out',
    c.cert,
    '-days',
    String(c.days),
    '-subj',
    `/CN=${c.cn}`,
    ...(c.serial ? ['-set_serial', `0x${c.serial}`] : []),
    ...(c.san?.length ? ['-addext', `subjectAltName=${c.san.join(',')}`] : []),
    ...(c.ca === undefined ? [] : ['-addext', `basicConstraints=critical,CA:${c.ca ? 'TRUE' : 'FALSE'}`]),
  ];
}

/**
 * Makes the certificate `c` describes and its key. Asynchronous, so that a test whose server runs
 * in the same process keeps answering meanwhile.
 */
export async function makeSelfSignedEc(c: SelfSignedEc): Promise<void> {
  await promisify(execFile)('openssl', selfSignedEcArgs(c), { cwd: c.cwd });
}
