import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedEcArgs } from './self-signed.js';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export interface TestToken {
  /** Give this as SOFTHSM2_CONF to every process that opens the token. */
  conf: string;
  label: string;
  pin: string;
  certificate: string;
  /** The private key (PEM) as imported, for checks made outside the token. */
  privateKey: string;
  remove(): void;
}

export function softhsmAvailable(): boolean {
  return (
    existsSync(SOFTHSM_MODULE) && existsSync('/usr/bin/softhsm2-util') && existsSync('/usr/bin/pkcs11-tool')
  );
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.filter((a) => !/^\d{6,8}$/.test(a)).join(' ')} failed: ${r.stderr || r.stdout}`,
    );
  return r.stdout;
}

/** An initialized SoftHSM2 token (label ksp-ukey) holding nothing: a blank UKEY to provision. */
export function createEmptyTestToken(pin = '123456'): TestToken {
  const { dir, conf, label } = initToken(pin);
  return {
    conf,
    label,
    pin,
    certificate: '',
    privateKey: '',
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function initToken(pin: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-softhsm-'));
  mkdirSync(join(dir, 'tokens'));
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  const env = { ...process.env, SOFTHSM2_CONF: conf };
  const label = 'ksp-ukey';
  run(
    'softhsm2-util',
    ['--init-token', '--free', '--label', label, '--so-pin', '87654321', '--pin', pin],
    dir,
    env,
  );
  return { dir, conf, env, label };
}

/**
 * A SoftHSM2 token standing in for a UKEY: an EC P-256 key pair and its self-signed
 * certificate (CN = `cn`) under CKA_ID 01, in a token directory of its own.
 */
export function createTestToken(cn: string, pin = '123456'): TestToken {
  const { dir, conf, env, label } = initToken(pin);
  run('openssl', selfSignedEcArgs({ key: 'key.pem', cert: 'cert.pem', cn, days: 30 }), dir, env);
  run('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', 'key.pem', '-out', 'key.p8'], dir, env);
  run(
    'softhsm2-util',
    ['--import', 'key.p8', '--token', label, '--label', 'ukey', '--id', '01', '--pin', pin],
    dir,
    env,
  );
  run('openssl', ['x509', '-in', 'cert.pem', '-outform', 'DER', '-out', 'cert.der'], dir, env);
  run(
    'pkcs11-tool',
    [
      '--module',
      SOFTHSM_MODULE,
      '--token-label',
      label,
      '--login',
      '--pin',
      pin,
      '--write-object',
      'cert.der',
      '--type',
      'cert',
      '--id',
      '01',
      '--label',
      'ukey',
    ],
    dir,
    env,
  );
  const certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const privateKey = readFileSync(join(dir, 'key.pem'), 'utf8');
  rmSync(join(dir, 'key.pem'));
  rmSync(join(dir, 'key.p8'));
  return {
    conf,
    label,
    pin,
    certificate,
    privateKey,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
