import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, type HsmStatus } from '@ksp/contracts';
import { launch, newPage, shot } from './support/browser.js';
import { openMenu } from './support/console-ui.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import {
  SOFTHSM_MODULE,
  createEmptyTestToken,
  softhsmAvailable,
  type TestToken,
} from '../tools/ukey-bridge/src/softhsm-token.js';

// SoftHSM2 is a required peer here (Debian softhsm2, opensc): never skipped.
if (!softhsmAvailable()) throw new Error('SoftHSM2 and OpenSC are required (Debian softhsm2, opensc)');

const PIN = '482915';

describe('settings › HSM, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let hsm: TestToken;
  let token: string;

  beforeAll(async () => {
    hsm = createEmptyTestToken(PIN);
    // The server's PKCS#11 library finds this run's throwaway token through SOFTHSM2_CONF.
    // Only libraries in the directories the operator names may be loaded: SoftHSM2's (the
    // Debian link and the directory it points into).
    ksp = await startKsp({
      SOFTHSM2_CONF: hsm.conf,
      KSP_PKCS11_DIRS: [dirname(SOFTHSM_MODULE), dirname(realpathSync(SOFTHSM_MODULE))].join(':'),
    });
    await initializeByApi(ksp.url);
    token = await loginByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    hsm?.remove();
  });

  it('tests the token, binds the root key to it and shows the device', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, 'Settings', 'HSM');
    await page.waitForURL(/\/console\/setting\/hsm$/);
    await expect
      .poll(() => page.getByTestId('hsm-state').innerText())
      .toContain('sealed by the local seal file');

    // A wrong PIN first: the token's refusal shows on the page, naming the field.
    await page.getByTestId('hsm-library').fill(SOFTHSM_MODULE);
    await page.getByTestId('hsm-token-label').fill(hsm.label);
    await page.getByTestId('hsm-pin').fill('000000');
    await page.getByTestId('hsm-test').click();
    await expect
      .poll(() => page.getByTestId('hsm-outcome').innerText())
      .toMatch(/^pin: the HSM token .* refused the PIN/);

    await page.getByTestId('hsm-pin').fill(PIN);
    // The buttons stay disabled for the re-click lock (2 s) after a submit.
    await expect.poll(() => page.getByTestId('hsm-test').isEnabled(), { timeout: 5000 }).toBe(true);
    await page.getByTestId('hsm-test').click();
    await expect
      .poll(() => page.getByTestId('hsm-outcome').innerText())
      .toMatch(
        /Round trip succeeded on token ksp-ukey \([0-9a-f]+\): key ksp-root-of-trust is sensitive and not extractable/,
      );
    await shot(page, 'hsm-tested-en');

    await expect.poll(() => page.getByTestId('hsm-bind').isEnabled(), { timeout: 5000 }).toBe(true);
    await page.getByTestId('hsm-bind').click();
    await page.getByTestId('hsm-bind-ok').click();
    await expect
      .poll(() => page.getByTestId('hsm-state').innerText())
      .toContain('sealed by the HSM token ksp-ukey');
    const status = await apiCall<HsmStatus>(ksp.url, api.hsm.status, undefined, token);
    expect(status.data).toMatchObject({ bound: true, root_provider: 'pkcs11', token_label: 'ksp-ukey' });
    expect(await page.getByTestId('hsm-serial').innerText()).toBe(status.data.slot_serial);
    await shot(page, 'hsm-bound-en');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('speaks Chinese and runs "test" on the stored settings', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/setting/hsm`);
    await expect
      .poll(() => page.getByTestId('hsm-state').innerText())
      .toContain('根密钥由 HSM 令牌 ksp-ukey');
    // The stored settings fill the form; with no PIN typed, the stored settings (and PIN) are tested.
    await expect.poll(() => page.getByTestId('hsm-library').inputValue()).toBe(SOFTHSM_MODULE);
    await page.getByTestId('hsm-test').click();
    await expect.poll(() => page.getByTestId('hsm-outcome').innerText()).toMatch(/ksp-ukey.*往返测试成功/);
    expect(await page.getByTestId('hsm-bind').innerText()).toMatch(/重新绑定/);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(1);
    await shot(page, 'hsm-zh-800');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
