import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, newPageIn, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { boxOf, cellShown, cellUnder, onTop, overlapArea } from './support/geometry.js';
import { loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

/** A figure of the dashboard, as a number. */
async function figure(page: Page, testId: string): Promise<number> {
  const text = await page.getByTestId(testId).innerText();
  return Number(text.replace(/[^\d]/g, ''));
}

describe('the dashboard, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'dashboard' });
  let token: string;

  beforeAll(async () => {
    token = await loginByApi(ksp.url);
  });

  /** Makes a key and encrypts once with it, through the API. */
  async function keyAndEncrypt(name: string): Promise<void> {
    const created = await apiCall<{ id: string }>(
      ksp.url,
      api.key.create,
      { name, algorithm: 'AES-256', usage_mask: 0x0c },
      token,
    );
    if (created.code !== 0) throw new Error(`key.create: ${created.msg}`);
    const encrypted = await apiCall(
      ksp.url,
      api.crypto.encrypt,
      { key_id: created.data.id, plaintext: Buffer.from('dashboard').toString('base64') },
      token,
    );
    if (encrypted.code !== 0) throw new Error(`crypto.encrypt: ${encrypted.msg}`);
  }

  for (const lang of ['en', 'zh'] as const) {
    const words =
      lang === 'en'
        ? { inUse: 'In use', operations: 'Cryptographic operations', updated: /^Updated at \d\d:\d\d:\d\d$/ }
        : { inUse: '使用中', operations: '密码运算', updated: /^更新于 \d\d:\d\d:\d\d$/ };

    it(`counts a new key and its encryption after a refresh (${lang})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang === 'en' ? 'en-US' : 'zh-CN' });
      await signIn(page, ksp.url);
      if (lang === 'zh') await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/console/dashboard`);
      await page.getByTestId('dashboard-keys-in-use').waitFor();
      await page.getByTestId('dashboard-ops-encrypt').waitFor();
      expect(await page.getByTestId('dashboard-updated-at').innerText()).toMatch(words.updated);
      const body = await page.locator('main, body').first().innerText();
      expect(body).toContain(words.inUse);
      expect(body).toContain(words.operations);

      const keysBefore = await figure(page, 'dashboard-keys-in-use');
      const encryptsBefore = await figure(page, 'dashboard-ops-encrypt');
      const keyName = `dash-e2e-${lang}`;
      await keyAndEncrypt(keyName);

      await page.getByTestId('dashboard-refresh').click();
      await expect.poll(() => figure(page, 'dashboard-keys-in-use')).toBe(keysBefore + 1);
      await expect.poll(() => figure(page, 'dashboard-ops-encrypt')).toBe(encryptsBefore + 1);
      await shot(page, `dashboard-${lang}`);

      // The figure opens the key list filtered to keys in use, the new key among them.
      await page.getByTestId('dashboard-keys-in-use').click();
      await page.waitForURL(/\/console\/key\?state=in-use/);
      await page.getByText(keyName, { exact: true }).first().waitFor();
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  for (const view of [
    { width: 1440, height: 900, lang: 'en' },
    { width: 1280, height: 800, lang: 'zh' },
  ] as const) {
    it(`leaves the Services card uncovered by the settings button at ${view.width} px (${view.lang})`, async () => {
      const { page, errors } = await newPageIn(browser, ksp.url, view);
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/dashboard`);
      const services = page.getByTestId('dashboard-services');
      await services.waitFor();
      const toggle = await boxOf(page.getByTestId('settings-toggle'));
      // Scrolled to the bottom as well: a button fixed to the window met the cards there.
      for (const scrollY of [0, 10_000]) {
        await page.evaluate((y) => window.scrollTo(0, y), scrollY);
        const content = await boxOf(page.locator('.ant-layout-content'));
        expect(overlapArea(await boxOf(page.getByTestId('settings-toggle')), content)).toBe(0);
      }
      await services.scrollIntoViewIfNeeded();
      expect(overlapArea(await boxOf(page.getByTestId('settings-toggle')), await boxOf(services))).toBe(0);
      expect(await onTop(services)).toBe(true);
      expect(toggle.width).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  for (const view of [
    { width: 1440, height: 900, lang: 'en', titles: ['Result', 'Source address', 'Time', 'User'] },
    { width: 1280, height: 800, lang: 'zh', titles: ['结果', '来源地址', '时间', '用户'] },
    { width: 1440, height: 900, lang: 'zh', titles: ['结果', '来源地址', '时间', '用户'] },
    { width: 1280, height: 800, lang: 'en', titles: ['Result', 'Source address', 'Time', 'User'] },
  ] as const) {
    it(`shows the recent records' result and address whole at ${view.width} px (${view.lang})`, async () => {
      const { page, errors } = await newPageIn(browser, ksp.url, view);
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/dashboard`);
      const row = page.getByTestId('dashboard-recent').locator('tr.ant-table-row').first();
      await row.waitFor();
      await row.scrollIntoViewIfNeeded();
      for (const title of view.titles)
        expect(`${title}: ${await cellShown(await cellUnder(row, title))}`).toBe(`${title}: shown`);
      // A long target is cut to its column, whole in a tooltip, rather than widening the table.
      const table = await boxOf(page.getByTestId('dashboard-recent'));
      expect(table.x + table.width).toBeLessThanOrEqual(view.width);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('fits a narrow window (below 992 px) without sideways scrolling', async () => {
    const { page, errors } = await newPage(browser, { width: 900, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/dashboard`);
    await page.getByTestId('dashboard-ops-encrypt').waitFor();
    // The charts (their own chunk) draw at this width too: the family bars and the operation lines.
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    await page.locator('.recharts-line').first().waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'dashboard-narrow');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
