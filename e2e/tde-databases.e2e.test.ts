import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DB_KEY_PATH, DB_TOKEN_PREFIX } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { consoleRun } from './support/run.js';
import { apiCall, httpsRequest } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { aesKcv, chooseOption, signIn } from './support/ui.js';
import { makeSelfSignedEc } from '../tools/ukey-bridge/src/self-signed.js';

interface KeyRead {
  data: { data: { data: string }; metadata: { version: number } };
}

/**
 * TDE › Database clients, over HTTPS as a database reads (docs/tde-database.md): a client is
 * made in the browser, two AES-256 keys are granted to it, the token shown once is read from its
 * dialog, and a real key read with that token, trusting the certificate the page offers for
 * download, answers the key (checked by its KCV); the read then shows on the key's detail page.
 */
describe('TDE › Database clients, in the browser and over the key endpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-e2e-tde-db-'));
  const cert = join(dir, 'server.pem');
  const key = join(dir, 'server.key');
  // Made before consoleRun's hook starts the server with it (hooks run in the order they are declared).
  beforeAll(async () => {
    await makeSelfSignedEc({ key, cert, cn: '127.0.0.1', days: 2, san: ['IP:127.0.0.1'] });
  });
  const { ksp, browser } = consoleRun({
    name: 'tde-databases',
    // Reads are tallied and written once per window: one second here, so the test need not wait a minute.
    env: { KSP_TLS_CERT: cert, KSP_TLS_KEY: key, KSP_DB_KEY_AUDIT_SECONDS: '1' },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const keys: { id: string; name: string; kcv: string }[] = [];
  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    for (const name of ['e2e-db-key-1', 'e2e-db-key-2']) {
      const created = await apiCall<{ id: string; kcv: string }>(
        ksp.url,
        api.key.create,
        { name, algorithm: 'AES-256', usage_mask: 0x0c },
        token,
      );
      expect(created.code, created.msg).toBe(0);
      keys.push({ id: created.data.id, name, kcv: created.data.kcv });
    }
  });

  it('creates a client, grants two keys, and the database reads them with the token shown once', async () => {
    const { page, errors } = await newPage(browser, { ignoreHTTPSErrors: true });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/cte/databases/main`);

    // The key endpoint: this address and the path, over TLS, with the certificate to download.
    await expect.poll(() => page.getByTestId('db-endpoint-url').innerText()).toBe(`${ksp.url}${DB_KEY_PATH}`);
    expect(await page.getByTestId('db-endpoint-no-tls').count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('db-endpoint-cert-download').click(),
    ]);
    const ca = readFileSync(await download.path(), 'utf8');
    expect(ca).toBe(readFileSync(cert, 'utf8'));

    await page.getByTestId('db-add').click();
    await page.getByTestId('db-create-name').fill('e2e-mariadb');
    await page.getByTestId('db-create-description').fill('MariaDB with hashicorp_key_management');
    await page.getByTestId('db-create-ip').fill('127.0.0.1');
    await page.getByTestId('db-create-ok').click();
    const shown = page.getByTestId('db-token-value');
    await shown.waitFor();
    const token = (await shown.innerText()).trim();
    expect(token).toMatch(/^kspdb_\S+$/);
    await shot(page, 'tde-databases-token-en');
    await page.getByTestId('db-token-done').click();
    await shown.waitFor({ state: 'detached' });
    const row = page.getByTestId('db-row-e2e-mariadb');
    await row.waitFor();
    expect(await page.getByTestId('db-token-e2e-mariadb').innerText()).toBe(
      `${token.slice(0, DB_TOKEN_PREFIX.length + 6)}…`,
    );

    await page.getByTestId('db-details-e2e-mariadb').click();
    for (const [index, granted] of keys.entries()) {
      const dbKeyId = String(index + 1);
      await page.getByTestId('db-grant-id').fill(dbKeyId);
      await chooseOption(page, 'db-grant-key', granted.name);
      await page.getByTestId('db-grant-ok').click();
      await page.getByTestId(`db-grant-${dbKeyId}`).waitFor();
      expect(await page.getByTestId(`db-grant-key-${dbKeyId}`).innerText()).toBe(granted.name);
    }
    await shot(page, 'tde-databases-grants-en');
    await page.keyboard.press('Escape');

    // What the database does: read key id N with its token, over TLS, trusting the downloaded certificate.
    const read = (dbKeyId: number, with_token = token) =>
      httpsRequest(
        `${ksp.url}${DB_KEY_PATH}/data/${dbKeyId}`,
        { headers: { 'X-Vault-Token': with_token } },
        ca,
      );
    for (const [index, granted] of keys.entries()) {
      const answer = await read(index + 1);
      expect(answer.status, answer.text).toBe(200);
      const body = JSON.parse(answer.text) as KeyRead;
      expect(body.data.data.data).toMatch(/^[0-9a-f]{64}$/);
      expect(body.data.metadata.version).toBe(1);
      // The key read is the KSP key granted under that id.
      expect(aesKcv(Buffer.from(body.data.data.data, 'hex'))).toBe(granted.kcv);
    }
    expect((await read(3)).status).toBe(403);
    expect((await read(1, `${token}x`)).status).toBe(403);

    // The key's detail page lists the client as one that may read it, and its reads once the
    // window they were counted in has closed and been written.
    await page.goto(`${ksp.url}/console/key/detail/${keys[0]!.id}`);
    const reads = page.getByTestId('key-db-read-e2e-mariadb-1');
    await reads.waitFor();
    const oneRead = /^e2e-mariadb\s+1\s+1\s+\d{4}-\d\d-\d\d [\d:]+\s+1\s*$/;
    await expect
      .poll(
        async () => {
          if (!oneRead.test(await reads.innerText())) {
            await page.reload();
            await reads.waitFor();
          }
          return reads.innerText();
        },
        { timeout: 30_000 },
      )
      .toMatch(oneRead);
    const section = page.getByTestId('key-db-reads');
    expect(await section.innerText()).toContain('Database reads');
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'tde-databases-key-reads-en');

    // And the client's row its last read, from this address.
    await page.goto(`${ksp.url}/cte/databases/main`);
    await expect.poll(() => page.getByTestId('db-row-e2e-mariadb').innerText()).toContain('127.0.0.1');
    await shot(page, 'tde-databases-list-en');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
