import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { newEcKey } from './support/agent.js';
import { newPage, shot } from './support/browser.js';
import { openMenu } from './support/console-ui.js';
import { consoleRun } from './support/run.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';

/** Runs openssl in `dir`; its output, or the reason it failed. */
function openssl(dir: string, args: string[]): string {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * Keys › KMIP clients: with the KMIP listener on (its certificate made by openssl here), a client
 * is added in the browser from a CSR openssl made (its key stays in this test's folder), its
 * issued certificate is the CSR's key's, it is listed, and it is disabled.
 */
describe('Keys › KMIP clients, in the browser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-e2e-kmip-'));
  openssl(dir, [
    'req',
    '-x509',
    ...newEcKey('server.key'),
    '-out',
    'server.pem',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  openssl(dir, ['req', '-new', ...newEcKey('client.key'), '-out', 'client.csr', '-subj', '/CN=e2e-array']);
  const { ksp, browser } = consoleRun({
    name: 'kmip-clients',
    env: {
      KSP_KMIP_PORT: '0',
      KSP_KMIP_CERT: join(dir, 'server.pem'),
      KSP_KMIP_KEY: join(dir, 'server.key'),
    },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a client from an openssl CSR, shows its certificate, lists it and disables it', async () => {
    const { page, errors } = await newPage(browser, { locale: 'en-US' });
    await signIn(page, ksp.url);
    await openMenu(page, null, 'KMIP clients');
    await page.waitForURL(/\/console\/kmip$/);
    await expect.poll(() => page.getByTestId('kmip-listener-state').innerText()).toBe('Listening');
    expect(await page.getByTestId('kmip-listener-versions').innerText()).toContain('2.0');
    expect(Number(await page.getByTestId('kmip-listener-port').innerText())).toBeGreaterThan(0);

    await page.getByTestId('kmip-add').click();
    expect(await page.getByTestId('kmip-create-key-note').innerText()).toContain(
      'The private key never reaches KSP',
    );
    await page.getByTestId('kmip-create-name').fill('e2e-array');
    await chooseOption(page, 'kmip-create-role', 'Operator');
    await page.getByTestId('kmip-create-validity').fill('30');
    await page.getByTestId('kmip-create-csr-file').setInputFiles(join(dir, 'client.csr'));
    await expect
      .poll(() => page.getByTestId('kmip-create-csr').inputValue())
      .toContain('BEGIN CERTIFICATE REQUEST');
    await page.getByTestId('kmip-create-ok').click();

    const certificate = page.getByTestId('kmip-issued-certificate');
    await certificate.waitFor();
    const pem = await certificate.inputValue();
    expect(pem).toContain('-----BEGIN CERTIFICATE-----');
    expect(await page.getByTestId('kmip-issued-chain').inputValue()).toContain('-----BEGIN CERTIFICATE-----');
    // The certificate is for the key that made the CSR, which never left this folder.
    writeFileSync(join(dir, 'client.pem'), pem);
    expect(openssl(dir, ['x509', '-in', 'client.pem', '-noout', '-pubkey'])).toBe(
      openssl(dir, ['pkey', '-in', 'client.key', '-pubout']),
    );
    await shot(page, 'kmip-issued-en');
    await page.getByTestId('kmip-issued-done').click();
    await certificate.waitFor({ state: 'hidden' });

    const row = page.getByTestId('kmip-row-e2e-array');
    await row.waitFor();
    await expect.poll(() => row.innerText()).toContain('Operator');
    expect(await page.getByTestId('kmip-state-e2e-array').innerText()).toBe('Active');
    const serial =
      openssl(dir, ['x509', '-in', 'client.pem', '-noout', '-serial']).trim().split('=')[1] ?? '';
    expect((await row.innerText()).toLowerCase()).toContain(serial.toLowerCase().replace(/^0+/, ''));
    // At 1280 px every action of the row shows whole, inside the list.
    const list = await page.getByTestId('kmip-list').boundingBox();
    const remove = await page.getByTestId('kmip-delete-e2e-array').boundingBox();
    expect(remove && list && remove.x + remove.width <= list.x + list.width).toBe(true);
    await shot(page, 'kmip-clients-en');

    await page.getByTestId('kmip-disable-e2e-array').click();
    await page.getByTestId('kmip-confirm-disable').click();
    await expect.poll(() => page.getByTestId('kmip-state-e2e-array').innerText()).toBe('Disabled');
    await page.getByTestId('kmip-enable-e2e-array').waitFor();
    const token = await loginByApi(ksp.url);
    const listed = await apiCall<{ data: { name: string; state: string }[] }>(
      ksp.url,
      api.kmip.list,
      undefined,
      token,
      { page: 1, page_size: 20 },
    );
    expect(listed.data.data.map((c) => [c.name, c.state])).toEqual([['e2e-array', 'disabled']]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits a narrow screen (below 992 px) without horizontal scrolling of the page', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/kmip`);
    await page.getByTestId('kmip-row-e2e-array').waitFor();
    await expect.poll(() => page.getByTestId('kmip-listener-state').innerText()).toBe('监听中');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'kmip-clients-narrow-zh');
    await page.getByTestId('kmip-add').click();
    const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('kmip-create-name') });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 800).toBe(true);
    await shot(page, 'kmip-create-narrow-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
