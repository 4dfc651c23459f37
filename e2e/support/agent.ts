import { spawnSync } from 'node:child_process';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The openssl `req` arguments of a new, unencrypted EC P-256 key written to `keyFile`. */
export function newEcKey(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile];
}

/**
 * A CSR for a fresh EC P-256 key, made by openssl as an agent would, and that key (for the
 * agent's signed calls); nothing stays on disk.
 */
export function agentCsr(cn: string): { csr: string; key: KeyObject } {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-e2e-agent-'));
  try {
    const r = spawnSync(
      'openssl',
      ['req', '-new', ...newEcKey('a.key'), '-subj', `/CN=${cn}`, '-out', 'a.csr'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    return {
      csr: readFileSync(join(dir, 'a.csr'), 'utf8'),
      key: createPrivateKey(readFileSync(join(dir, 'a.key'))),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
