import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallDef } from '@ksp/contracts';
import { freePort } from '../../apps/server/src/test/free-port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const mainJs = join(root, 'apps/server/dist/main.js');
const webIndex = join(root, 'apps/web/dist/index.html');

export interface RunningServer {
  /** `https://…` when the server was started with KSP_TLS_CERT and KSP_TLS_KEY, else `http://…`. */
  url: string;
  dataDir: string;
  log: () => string;
  stop(): Promise<void>;
}

/** The certificates of the servers started over TLS, by their URL: what `send` trusts for each. */
const trusted = new Map<string, string>();

/** The status and body of one HTTPS request, checking the server against `ca` (a self-signed certificate). */
export function httpsRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  ca: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** One request to a started server: fetch over HTTP; over HTTPS, trusting the certificate it was started with. */
async function send(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const ca = trusted.get(base);
  if (ca) return httpsRequest(`${base}${path}`, init, ca);
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, text: await res.text() };
}

/**
 * Starts the real, built server (`node apps/server/dist/main.js`) on a fresh data directory;
 * with KSP_TLS_CERT and KSP_TLS_KEY in `env` it serves HTTPS, and this file's calls trust that
 * certificate (a browser needs `ignoreHTTPSErrors`, see `newPage`).
 */
export async function startKsp(env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(mainJs) || !existsSync(webIndex)) {
    throw new Error('Build first: npm run build (apps/server/dist and apps/web/dist are needed)');
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-e2e-'));
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [mainJs], {
    cwd: root,
    env: {
      ...process.env,
      KSP_DATA_DIR: dataDir,
      KSP_PORT: String(port),
      KSP_HOST: '127.0.0.1',
      KSP_LOG_LEVEL: 'warn',
      // Each test signs in many times a minute from one address; the limits are tested by the server suite.
      KSP_LOGIN_RATE_PER_USER: '1000',
      KSP_LOGIN_RATE_PER_ADDRESS: '5000',
      // Password hashes at N = 2^4 instead of production's 2^15 (docs/testing.md#sign-in-cost).
      NODE_ENV: 'test',
      KSP_TEST_PASSWORD_COST: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `${env.KSP_TLS_CERT ? 'https' : 'http'}://127.0.0.1:${port}`;
  if (env.KSP_TLS_CERT) trusted.set(url, readFileSync(env.KSP_TLS_CERT, 'utf8'));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`KSP exited early:\n${output}`);
    try {
      const res = await send(url, '/v1/ksp/system/status');
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`KSP did not start in 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
      trusted.delete(url);
    },
  };
}

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** Calls one call of the contract (its method and path) with a JSON body or a query: for setting up what a test is not about. */
export async function apiCall<T>(
  base: string,
  call: Pick<CallDef, 'method' | 'path'>,
  body?: unknown,
  token?: string,
  query?: Record<string, string | number>,
): Promise<Envelope<T>> {
  const qs = query
    ? `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`
    : '';
  const res = await send(base, `${call.path}${qs}`, {
    method: call.method,
    headers: { 'content-type': 'application/json', ...(token ? { token } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return JSON.parse(res.text) as Envelope<T>;
}
