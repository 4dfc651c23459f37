import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { openMenu, rowWith, signInToConsole, signInUi, signOutUi } from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { ADMIN, createUserByApi, idByName, loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';
import { startBridge, type RunningBridge } from './support/ukey-bridge.js';
import {
  createEmptyTestToken,
  softhsmAvailable,
  type TestToken,
} from '../tools/ukey-bridge/src/softhsm-token.js';
import { consoleRun } from './support/run.js';

for (const [peer, available] of [
  ['SoftHSM2 and OpenSC (Debian softhsm2, opensc)', softhsmAvailable()],
] as const) {
  if (!available) {
    if (process.env.CI === 'true') throw new Error(`${peer} is required in CI`);
    console.warn(`\n!!! ${peer} not installed: its end-to-end test cannot run !!!\n`);
  }
}

/** The user the UKEY is issued for (no password change pending: the test is about the UKEY). */
const UNA = { username: 'una', password: 'Una-Pass-1', email: 'una@example.test' };

describe('UKEY certificates through the console', () => {
  const { ksp, browser } = consoleRun({ name: 'ukey-cert' });
  let rootToken: string;
  let token: TestToken | undefined;
  let bridge: RunningBridge | undefined;

  /** Sets a configuration entry through the API (what the test is not about). */
  async function setConfig(key: string, value: string) {
    const list = await apiCall<{ data: { id: string; key: string }[] }>(
      ksp.url,
      api.config.list,
      undefined,
      rootToken,
      { page: 1, page_size: 100 },
    );
    const entry = list.data.data.find((e) => e.key === key);
    if (!entry) throw new Error(`no configuration entry ${key}`);
    const edited = await apiCall(ksp.url, api.config.edit, { id: entry.id, value }, rootToken);
    expect(edited.code).toBe(0);
  }

  beforeAll(async () => {
    rootToken = await loginByApi(ksp.url);
    await createUserByApi(ksp.url, rootToken, {
      ...UNA,
      role_ids: [await idByName(ksp.url, rootToken, api.role.list, 'Administrator')],
    });
    if (softhsmAvailable()) {
      // A blank UKEY; SoftHSM2 has no SM2 signing mechanism, so the bridge signs SM2 itself.
      token = createEmptyTestToken('123456');
      bridge = await startBridge(token.conf, ksp.url, ['--sm2-in-bridge']);
      await setConfig('UKEY_BRIDGE', bridge.url);
    }
  });
  afterAll(async () => {
    await bridge?.stop();
    token?.remove();
  });

  async function openUkeyForm(page: Page) {
    await page.getByTestId('ukey-issue-open').click();
    await page.getByTestId('ukey-issue-form').waitFor();
  }

  it('in Chinese at 800 px: the form fits, and refuses a short PIN and a confirmation that differs', async () => {
    const { page, errors, context } = await newPage(browser, { locale: 'zh-CN', width: 800 });
    // At 800 px the side menu folds away: the top bar says the console is there.
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/cert/local?tab=ukey`);
    await page.getByTestId('tab-ukey').getByText('UKEY 证书').waitFor();
    await openUkeyForm(page);

    // Nothing wider than the window: the modal and the page stay within 800 px.
    const modal = await page.locator('.ant-modal').boundingBox();
    expect(modal).not.toBeNull();
    expect(modal!.x).toBeGreaterThanOrEqual(0);
    expect(modal!.x + modal!.width).toBeLessThanOrEqual(800);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);

    await page.getByTestId('ukey-pin').fill('12345');
    await page.getByTestId('ukey-pin-confirm').fill('12345');
    await page.getByTestId('ukey-issue-ok').click();
    await page.getByText('PIN 码不能少于 6 个字符').waitFor();
    await page.getByTestId('ukey-pin').fill('123456');
    await page.getByTestId('ukey-pin-confirm').fill('654321');
    await page.getByTestId('ukey-issue-ok').click();
    await page.getByText('两次输入的 PIN 不一致').waitFor();
    await shot(page, 'ukey-cert-form-800-zh');
    // Refused in the form: the bridge made no key.
    expect(await page.getByTestId('ukey-step-keygen').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!softhsmAvailable())(
    'issues dual SM2 certificates onto a blank UKEY for a user, who then logs in with its password and the PIN',
    async () => {
      const { page, errors, context } = await newPage(browser);
      try {
        await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
        await openMenu(page, 'Certificates', 'Local');
        await page.waitForURL(/\/console\/cert\/local/);
        await page.getByTestId('tab-ukey').click();
        await page.waitForURL(/[?&]tab=ukey/);
        await openUkeyForm(page);

        await chooseOption(page, 'ukey-user', UNA.username);
        expect(await page.getByTestId('ukey-type').inputValue()).toBe('PKCS#11');
        // Dual is offered for SM2 only.
        expect(await page.getByTestId('ukey-spec-dual').count()).toBe(0);
        await page.getByTestId('ukey-algorithm-SM2').click();
        await page.getByTestId('ukey-spec-dual').click();
        // The one UKEY the bridge sees is chosen.
        await expect.poll(() => page.getByTestId('ukey-issue-form').innerText()).toContain('ksp-ukey (');
        await page.getByTestId('ukey-pin').fill(token!.pin);
        await page.getByTestId('ukey-pin-confirm').fill(token!.pin);
        await page.getByTestId('ukey-issue-ok').click();

        const issued = page.getByTestId('ukey-issued');
        await issued.waitFor({ timeout: 60_000 });
        expect(await issued.innerText()).toContain('The UKEY is now bound to una');
        expect(await page.getByTestId('ukey-issued-signing').innerText()).toContain('CN=una');
        expect(await page.getByTestId('ukey-issued-encryption').innerText()).toContain('CN=una');
        for (const step of ['keygen', 'issue', 'install'])
          expect(await page.getByTestId(`ukey-step-${step}`).getAttribute('data-status')).toBe('finish');
        await shot(page, 'ukey-cert-issued');
        await page.getByTestId('ukey-issue-close').click();

        // Both certificates are in the UKEY tab, which a reload keeps.
        const ukeyRows = page.locator('[data-testid="cert-list"]:visible [data-testid^="cert-row-UKEY "]');
        const row = (kind: string) => ukeyRows.and(page.locator(`[data-testid$=" ${kind}"]`));
        await row('signing').waitFor();
        await row('encryption').waitFor();
        await page.reload();
        await page.getByTestId('ukey-issue-open').waitFor();
        await row('encryption').waitFor();
        expect(await ukeyRows.count()).toBe(2);
        expect(await row('signing').innerText()).toContain('una');
        await shot(page, 'ukey-cert-list');

        // The user shows the UKEY as bound.
        await openMenu(page, 'Access management', 'Users');
        await rowWith(page, UNA.email).getByTestId('user-ukey-bound').waitFor();

        // MFA on, from the configuration page (as an administrator does).
        await openMenu(page, 'Settings', 'Configuration');
        await page.getByTestId('config-edit-MFA').click();
        await page.getByTestId('config-mfa').click();
        await page.getByTestId('form-modal-ok').click();
        await expect.poll(() => rowWith(page, 'MFA').innerText()).toContain('Yes');
        await signOutUi(page);

        // The user: password, then the PIN through the bridge, with the key made on the UKEY.
        await signInUi(page, ksp.url, UNA.username, UNA.password);
        await page.getByTestId('ukey-panel').waitFor();
        await page.getByTestId('ukey-pin').fill(token!.pin);
        await page.getByTestId('ukey-submit').click();
        await page.getByTestId('side-menu').waitFor();
        await page.waitForURL(/\/console\/dashboard/);
        expect(await page.getByTestId('user-menu').innerText()).toContain(UNA.username);
        expect(errors).toEqual([]);
      } finally {
        await setConfig('MFA', '0');
        await context.close();
      }
    },
  );
});
