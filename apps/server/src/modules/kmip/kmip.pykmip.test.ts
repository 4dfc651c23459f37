import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { call, initialize, ok, startServer, type TestServer } from '../../test/harness.js';
import { newEcKey, openssl, selfSignedEc } from '../../test/openssl.js';
import { kmipPortOf } from './kmip.module.js';

const script = fileURLToPath(new URL('./test/pykmip_client.py', import.meta.url));

const run = promisify(execFile);

/** Runs the PyKMIP client script (the server answers in this process, so never synchronously): its JSON answer. */
async function pykmip(
  port: number,
  files: { cert: string; key: string; ca: string },
  version: string,
  scenario: string,
) {
  const { stdout } = await run(
    '/usr/bin/python3',
    [script, '127.0.0.1', String(port), files.cert, files.key, files.ca, version, scenario],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('KMIP with PyKMIP (sqlite)', () => {
  let server: TestServer;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'ksp-kmip-'));
  const files = { cert: join(dir, 'client.pem'), key: join(dir, 'client.key'), ca: join(dir, 'server.pem') };
  let port: number;

  beforeAll(async () => {
    selfSignedEc(dir, { key: 'server.key', cert: 'server.pem', cn: '127.0.0.1', days: 2 });
    server = await startServer('sqlite', {
      KSP_KMIP_PORT: '0',
      KSP_KMIP_CERT: join(dir, 'server.pem'),
      KSP_KMIP_KEY: join(dir, 'server.key'),
    });
    ({ token } = await initialize(server));
    port = kmipPortOf(server.app)!;
    openssl(['req', '-new', ...newEcKey('client.key'), '-out', 'client.csr', '-subj', '/CN=pykmip'], dir);
    const roles = ok(await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } }));
    const roleId = roles.data.data.find((r) => r.name === 'Administrator')!.id;
    const { readFileSync } = await import('node:fs');
    const made = ok(
      await call(server, api.kmip.create, {
        token,
        body: { name: 'pykmip', role_id: roleId, csr: readFileSync(join(dir, 'client.csr'), 'utf8') },
      }),
    );
    writeFileSync(files.cert, made.data.certificate_pem + made.data.chain_pem);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const version of ['1.2', '2.0']) {
    it(`runs a key's life over KMIP ${version}`, async () => {
      const out = await pykmip(port, files, version, 'lifecycle');
      console.log(JSON.stringify(out, null, 1));
      expect(out.create).toMatch(/^[0-9a-f-]{36}$/);
    }, 60_000);
  }
});
