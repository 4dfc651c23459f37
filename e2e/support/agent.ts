import { spawnSync } from 'node:child_process';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, type tokenUsages } from '@ksp/contracts';
import { apiCall } from './server.js';

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

export interface EnrolledAgent {
  clientId: string;
  serial: string;
  /** The agent's private key, for its signed calls. */
  key: KeyObject;
}

/**
 * An agent enrolled through the public call, for a test that is not about enrolment: a fresh
 * registration token of `usage` (named `tokenName`) made with the administrator's token, and a
 * CSR of a fresh key. A "cte" token enrols a tde client; the others enrol their own type.
 */
export async function enrolAgent(
  base: string,
  adminToken: string,
  agent: {
    usage: (typeof tokenUsages)[number];
    tokenName: string;
    name: string;
    host: string;
    mac: string;
    agentVersion: string;
  },
): Promise<EnrolledAgent> {
  const created = await apiCall<{ secret: string }>(
    base,
    api.registrationToken.create,
    { name: agent.tokenName, usage: agent.usage },
    adminToken,
  );
  if (created.code !== 0) throw new Error(`registration token: ${created.msg}`);
  const { csr, key } = agentCsr(agent.name);
  const enrolled = await apiCall<{ client_id: string; serial: string }>(base, api.client.enrol, {
    token: created.data.secret,
    csr,
    name: agent.name,
    type: agent.usage === 'cte' ? 'tde' : agent.usage,
    os: 'Linux 6.1',
    agent_version: agent.agentVersion,
    mac: agent.mac,
    host: agent.host,
  });
  if (enrolled.code !== 0) throw new Error(`enrol ${agent.name}: ${enrolled.msg}`);
  return { clientId: enrolled.data.client_id, serial: enrolled.data.serial, key };
}
