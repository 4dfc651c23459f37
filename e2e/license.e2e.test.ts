import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { api, Code, Usage, type LicenseOverview } from '@ksp/contracts';
import { launch, newPage, newPageIn, shot } from './support/browser.js';
import { openMenu } from './support/console-ui.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { boxOf, onTop, overlapArea } from './support/geometry.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The minting tool, as the vendor runs it (tools/license-mint.ts). */
const mintTool = (...args: string[]) =>
  execFileSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'tools/license-mint.ts'), ...args], {
    encoding: 'utf8',
    input: args.at(-1) === '-' ? mintInput : undefined,
  }).trim();
let mintInput = '';

describe('settings › licenses, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let dir: string;
  let keyFile: string;
  let token: string;
  let lockCode: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksp-license-'));
    keyFile = join(dir, 'test-vendor.pem');
    // A throwaway signing key: the server trusts its public half for this run only.
    const publicKey = mintTool('keygen', keyFile);
    ksp = await startKsp({ KSP_LICENSE_TEST_PUBLIC_KEY: publicKey });
    await initializeByApi(ksp.url);
    token = await loginByApi(ksp.url);
    const lock = await apiCall<{ lock_code: string }>(ksp.url, api.license.lockdata, undefined, token);
    lockCode = lock.data.lock_code;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const newKey = (name: string) =>
    apiCall(
      ksp.url,
      api.key.create,
      { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
      token,
    );

  it('activates a minted licence, shows its figures, and a key over its quota is refused', async () => {
    const now = Date.now();
    mintInput = JSON.stringify({
      id: 'LIC-E2E-1',
      customer: 'E2E Corp',
      lock_code: lockCode,
      bind_type: 'instance',
      features: { keys: 3, kmip_clients: 7 },
      not_before: new Date(now - 86_400_000).toISOString(),
      not_after: new Date(now + 30 * 86_400_000).toISOString(),
      issued_at: new Date(now).toISOString(),
    });
    const licence = mintTool('mint', keyFile, '-');
    expect(licence).toMatch(/^KSP1\.[\w-]+\.[\w-]+$/);

    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, 'Settings', 'Licenses');
    await page.waitForURL(/\/console\/setting\/license$/);
    await expect.poll(() => page.getByTestId('license-lock-code').innerText()).toBe(lockCode);
    expect(await page.getByTestId('license-state').innerText()).toContain('Community edition');
    expect(await page.getByTestId('license-total-keys').innerText()).toBe('1,000');

    // A forged one first: the refusal shows under the field.
    await page.getByTestId('license-activate').click();
    const [head, body] = licence.split('.');
    await page.getByTestId('license-text').fill(`${head}.${body}.${'A'.repeat(86)}`);
    await page.getByTestId('license-activate-ok').click();
    await page.getByText('license: the signature does not verify').waitFor();
    await page.getByTestId('license-text').fill(licence);
    // The OK button stays disabled for the re-click lock (2 s) after the refused submit.
    await expect
      .poll(() => page.getByTestId('license-activate-ok').isEnabled(), { timeout: 5000 })
      .toBe(true);
    await page.getByTestId('license-activate-ok').click();
    await expect.poll(() => page.getByTestId('license-total-keys').innerText()).toBe('3');
    expect(await page.getByTestId('license-status-LIC-E2E-1').innerText()).toBe('Active');
    expect(await page.getByTestId('license-total-kmip_clients').innerText()).toBe('7');
    expect(await page.getByTestId('license-used-keys').innerText()).toBe('0');
    await shot(page, 'license-active-en');

    for (const name of ['e2e-1', 'e2e-2', 'e2e-3']) expect((await newKey(name)).code).toBe(0);
    const over = await newKey('e2e-4');
    expect(over.code).toBe(Code.STATE_FORBIDS);
    expect(over.msg).toBe('Licence limit reached: keys is limited to 3');
    await page.reload();
    await expect.poll(() => page.getByTestId('license-used-keys').innerText()).toBe('3');
    const listed = await apiCall<LicenseOverview>(ksp.url, api.license.list, undefined, token);
    expect(listed.data.features.find((f) => f.feature === 'keys')).toMatchObject({ total: 3, used: 3 });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  for (const view of [
    { width: 1440, height: 900, lang: 'en' },
    { width: 1280, height: 800, lang: 'zh' },
    { width: 900, height: 900, lang: 'en' },
    { width: 1440, height: 900, lang: 'zh' },
  ] as const) {
    it(`keeps the settings button off the page's content at ${view.width}×${view.height} (${view.lang})`, async () => {
      const { page, errors } = await newPageIn(browser, ksp.url, view);
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/setting/license`);
      const activate = page.getByTestId('license-activate');
      await activate.waitFor();
      const toggle = page.getByTestId('settings-toggle');
      // The button sits in the bar above the content, never over the content itself.
      const content = await boxOf(page.locator('.ant-layout-content'));
      expect(overlapArea(await boxOf(toggle), content)).toBe(0);
      expect(overlapArea(await boxOf(toggle), await boxOf(activate))).toBe(0);
      // A click on "Activate" reaches it (wherever the page is scrolled to show it), and the
      // button still opens the settings.
      await activate.scrollIntoViewIfNeeded();
      expect(overlapArea(await boxOf(toggle), await boxOf(activate))).toBe(0);
      expect(await onTop(activate)).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 0));
      await toggle.click();
      await page.getByTestId('settings-drawer').waitFor();
      await shot(page, `license-settings-${view.width}-${view.lang}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('speaks Chinese and fits an 800 px window', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/setting/license`);
    await expect.poll(() => page.getByTestId('license-status-LIC-E2E-1').innerText()).toBe('生效中');
    expect(await page.getByTestId('license-features').innerText()).toContain('授权总数');
    expect(await page.getByTestId('license-features').innerText()).toContain('已使用数量');
    expect(await page.getByTestId('license-activate').innerText()).toMatch(/激\s*活/);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(1);
    await shot(page, 'license-zh-800');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
