import { beforeAll, describe, expect, it } from 'vitest';
import { newPage, shot } from './support/browser.js';
import { loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { enrolAgent } from './support/agent.js';
import { consoleRun } from './support/run.js';

const langs = [
  { code: 'en', locale: 'en-US', healthy: 'Healthy', total: 'Total', ca: 'Issuing CA' },
  { code: 'zh', locale: 'zh-CN', healthy: '健康', total: '总数', ca: '签发 CA' },
] as const;

/** KADP › clients: an application enrolled through the API shows on the list and its detail page. */
describe('KADP › clients, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'kadp-clients' });
  let serial = '';

  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    const agent = await enrolAgent(ksp.url, token, {
      usage: 'kadp',
      tokenName: 'e2e-apps',
      name: 'e2e-billing',
      host: 'billing.e2e.test',
      mac: '02:00:00:00:00:01',
      agentVersion: '1.0.0',
    });
    serial = agent.serial;
  });

  for (const lang of langs) {
    it(`lists the enrolled client and opens its details (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/kadp/clients`);
      const row = page.getByTestId('client-row-e2e-billing');
      await row.waitFor();
      await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('KADP');
      expect(await row.innerText()).toContain(lang.healthy);
      expect(await row.innerText()).toContain('billing.e2e.test');
      const total = page.getByTestId('client-count-total');
      expect(await total.innerText()).toContain(lang.total);
      await expect.poll(() => total.innerText()).toContain('1');
      await shot(page, `kadp-clients-${lang.code}`);
      await page.getByTestId('client-open-e2e-billing').click();
      const cert = page.getByTestId('client-certificate');
      await cert.waitFor();
      expect(await cert.innerText()).toContain(lang.ca);
      expect((await cert.innerText()).toLowerCase()).toContain(serial.toLowerCase());
      expect(await page.getByTestId('client-identity').innerText()).toContain('02:00:00:00:00:01');
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('fits a narrow screen (below 992 px) without horizontal scrolling of the page', async () => {
    const { page } = await newPage(browser, { locale: 'en-US', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/kadp/clients`);
    await page.getByTestId('client-row-e2e-billing').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
