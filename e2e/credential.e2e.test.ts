import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { ADMIN, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

const langs = [
  { code: 'en', locale: 'en-US', title: 'SMS', hidden: 'Hidden again', type: 'API key / token' },
  { code: 'zh', locale: 'zh-CN', title: '凭据管理', hidden: '已隐藏', type: 'API 密钥 / 令牌' },
] as const;

/** SMS › credentials: create one in the browser, open it, reveal its value with the password. */
describe('SMS › credentials, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'credential' });

  const list = (page: Page) => page.locator('[data-testid="cred-list"]:visible');

  for (const lang of langs) {
    it(`creates and reveals a credential (${lang.code})`, async () => {
      const name = `e2e-api-${lang.code}`;
      const secret = `sk_live_${lang.code}_0123456789abcdef`;
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh') {
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      }
      await page.goto(`${ksp.url}/credential/cred`);
      await list(page).waitFor();
      await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe(lang.title);

      // Add: an API key, typed in the masked field.
      await page.getByTestId('cred-add').click();
      await page.getByTestId('cred-name').fill(name);
      await page.getByTestId('cred-type').click();
      await page
        .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', {
          hasText: lang.type,
        })
        .click();
      await page.getByTestId('cred-value').fill(secret);
      await page.getByTestId('cred-create-ok').click();
      await list(page).getByTestId(`cred-open-${name}`).waitFor();
      // The list never shows the value.
      expect(await list(page).innerText()).not.toContain(secret);

      // Open it, reveal version 1 with the password typed again.
      await list(page).getByTestId(`cred-open-${name}`).click();
      await page.getByTestId('cred-reveal-v1').click();
      await page.getByTestId('cred-reveal-password').fill(ADMIN.password);
      await page.getByTestId('cred-reveal-ok').click();
      await expect.poll(() => page.getByTestId('cred-reveal-value').innerText()).toBe(secret);
      await page.getByTestId('cred-reveal-copy').waitFor();
      await shot(page, `credential-reveal-${lang.code}`);
      await page.getByTestId('cred-reveal-hide').click();
      await expect.poll(() => page.getByTestId('cred-reveal-hidden').innerText()).toContain(lang.hidden);
      expect(await page.getByTestId('cred-reveal-value').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.context().close();

      // The server recorded the reveal with who and which version.
      const token = await loginByApi(ksp.url);
      const logs = await apiCall<{
        data: { action: string; username: string; target: string; result: string; details: object }[];
      }>(ksp.url, api.log.list, undefined, token, { page: 1, page_size: 50 });
      const reveals = logs.data.data.filter((r) => r.action === 'credential.reveal' && r.target === name);
      expect(reveals).toEqual([
        expect.objectContaining({ username: ADMIN.username, result: 'success', details: { version: 1 } }),
      ]);
    });
  }
});
