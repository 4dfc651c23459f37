import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { CLIENT_LOG_AUDIENCE } from '@ksp/contracts';
import { initialize, startServer, type TestServer } from './harness.js';
import { licenseEverything, testLicenseKeys } from './license.js';
import { newEcKey, openssl } from './openssl.js';

/** An agent's key pair (EC P-256) and a CSR for it, made by openssl (as an agent would). */
export function agentKeyAndCsr(
  cn: string,
  keyArgs: string[] = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-agent-'));
  try {
    openssl(
      [
        'req',
        '-new',
        ...keyArgs,
        '-nodes',
        '-keyout',
        'agent.key',
        '-subj',
        `/CN=${cn}`,
        '-out',
        'agent.csr',
      ],
      dir,
    );
    return {
      key: createPrivateKey(readFileSync(join(dir, 'agent.key'))),
      csr: readFileSync(join(dir, 'agent.csr'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A self-signed client certificate and its key (made by openssl: no CA of the server). */
export function selfSignedAgent(cn: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-agent-'));
  try {
    openssl(
      [
        'req',
        '-x509',
        ...newEcKey('a.key'),
        '-subj',
        `/CN=${cn}`,
        '-days',
        '30',
        '-addext',
        'extendedKeyUsage=clientAuth',
        '-out',
        'a.pem',
      ],
      dir,
    );
    return {
      key: createPrivateKey(readFileSync(join(dir, 'a.key'))),
      certPem: readFileSync(join(dir, 'a.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const derOf = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

export interface TokenOptions {
  key: KeyObject;
  certPem: string;
  body: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
  exp?: number;
  jti?: string;
  aud?: string;
  bh?: string;
  alg?: string;
}

let counter = 0;

/** `Agent <JWS>` for an upload of `body`, signed as docs/agent-log-upload.md says. */
export function agentAuthorization(o: TokenOptions): string {
  const iat = o.iat ?? Math.floor(Date.now() / 1000);
  const type = o.key.asymmetricKeyType;
  const alg = o.alg ?? (type === 'ec' ? 'ES256' : type === 'ed25519' ? 'EdDSA' : 'RS256');
  const header = { alg, typ: 'JWT', x5c: [derOf(o.certPem)] };
  const claims = {
    aud: o.aud ?? CLIENT_LOG_AUDIENCE,
    iat,
    exp: o.exp ?? iat + 120,
    jti: o.jti ?? `jti-${process.pid}-${Date.now()}-${++counter}`,
    bh: o.bh ?? createHash('sha256').update(o.body).digest('base64url'),
  };
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64(header)}.${b64(claims)}`;
  const signature =
    alg === 'EdDSA'
      ? sign(null, Buffer.from(input), o.key)
      : alg.startsWith('ES')
        ? sign(`sha${alg.slice(2)}`, Buffer.from(input), { key: o.key, dsaEncoding: 'ieee-p1363' })
        : sign(`sha${alg.slice(2)}`, Buffer.from(input), o.key);
  return `Agent ${input}.${signature.toString('base64url')}`;
}

/** The repository's root, and the reference agent's CLI (tools/ksp-agent) run from its source. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const agentCli = join(repoRoot, 'tools/ksp-agent/src/cli.ts');

/** Starts `ksp-agent <args>` as a child process (stdout and stderr piped). */
export function agentProcess(args: string[], o: { cwd?: string } = {}) {
  return spawn(process.execPath, ['--import', 'tsx', agentCli, ...args], {
    cwd: o.cwd ?? repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits for a child process to end: its exit code or signal, and what it wrote. */
export async function finished(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  );
  return { code, signal, stdout, stderr };
}

/** Polls `probe` every 100 ms until it answers something (not undefined or false); throws after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface AgentServer {
  server: TestServer;
  token: string;
  /** Where the agent reaches it: `http://127.0.0.1:<port>`. */
  base: string;
}

/**
 * Registers the hooks of a licensed SQLite server for the reference agent, listening on a
 * loopback port, with `env` besides; closed after the block's own after-hooks. The agent's
 * timestamps are real time: the server's test clock follows it from the start. `use` receives
 * the server, the first administrator's token and the address in the set-up hook.
 */
export function agentServer(use: (started: AgentServer) => unknown, env: Record<string, string> = {}): void {
  let server: TestServer | undefined;
  let clock: NodeJS.Timeout | undefined;
  beforeAll(async () => {
    const vendor = testLicenseKeys();
    server = await startServer('sqlite', { KSP_LICENSE_TEST_PUBLIC_KEY: vendor.publicKeyBase64, ...env });
    const started = server;
    clock = setInterval(() => (started.clock.now = new Date()), 100);
    const { token } = await initialize(server);
    await licenseEverything(server, token, vendor);
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    await use({
      server,
      token,
      base: `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    clearInterval(clock);
    await server?.close();
  });
}

/** `ksp-agent enrol` with a registration token's secret into `state`: the new client's id. */
export async function enrolAgent(
  base: string,
  o: { secret: string; name: string; type: 'tde' | 'rdm'; state: string },
): Promise<string> {
  const out = await finished(
    agentProcess([
      'enrol',
      '--server',
      base,
      '--token',
      o.secret,
      '--name',
      o.name,
      '--type',
      o.type,
      '--state',
      o.state,
    ]),
  );
  expect(out.code, out.stderr).toBe(0);
  return (JSON.parse(out.stdout) as { client_id: string }).client_id;
}
