import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { openMenu } from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { ADMIN, loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

const KEY = 'log-e2e-billing';

/** The list of the Logs page, and a row of it holding `text`. */
const logList = (page: Page) => page.getByTestId('log-list');
const logRow = (page: Page, text: string) => logList(page).locator('tr.ant-table-row', { hasText: text });

async function search(page: Page): Promise<void> {
  await page.getByTestId('log-search').click();
}

describe('logs, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'log' });
  let keyId: string;

  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    const created = await apiCall<{ id: string }>(
      ksp.url,
      api.key.create,
      { name: KEY, algorithm: 'AES-256', usage_mask: 0x0c },
      token,
    );
    if (created.code !== 0) throw new Error(`key.create: ${created.msg}`);
    keyId = created.data.id;
    // A refused sign-in (a wrong password for admin): a WARNING record of user.login, failure.
    const refused = await apiCall(ksp.url, api.user.login, {
      username: Buffer.from(ADMIN.username).toString('base64'),
      password: createHash('sha256').update('Not-The-Password-1').digest('base64'),
    });
    expect(refused.code).not.toBe(0);
  });

  it('filters the records, opens one, exports CSV; in English, then the columns in Chinese', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, null, 'Logs');
    await page.waitForURL(/\/console\/log$/);
    await logList(page).locator('tr.ant-table-row').first().waitFor();

    // An action: the key's creation, with its name as the target, in the URL too.
    await page.getByTestId('log-filter-action').fill('key.create');
    await search(page);
    await page.waitForURL(/[?&]action=key\.create/);
    const keyRow = logRow(page, KEY);
    await keyRow.waitFor();
    await expect.poll(() => logList(page).locator('tr.ant-table-row').count()).toBe(1);
    expect(await keyRow.getByTestId('log-action').innerText()).toBe('Key created');
    expect(await keyRow.getByTestId('log-severity').innerText()).toBe('INFO');
    expect(await keyRow.getByTestId('log-result').innerText()).toBe('Success');

    // Its every field in the drawer, the details as JSON.
    await keyRow.getByTestId('log-open').click();
    const drawer = page.getByTestId('log-detail');
    await drawer.waitFor();
    expect(await drawer.getByTestId('log-detail-id').innerText()).toMatch(/^[0-9a-f-]{36}$/);
    const details = await drawer.getByTestId('log-detail-details').inputValue();
    expect(JSON.parse(details)).toMatchObject({ key_id: keyId, algorithm: 'AES-256' });
    expect(await drawer.innerText()).toContain(KEY);
    await shot(page, 'log-detail');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    // Export CSV with the filters applied: the file the server names, its header row, the key.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('log-export-csv').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^ksp-log-\d{8}-\d{6}Z\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv.startsWith('at,severity,action')).toBe(true);
    expect(csv).toContain(KEY);
    expect(csv).not.toContain('user.login');

    // Failures only: the refused sign-in, a WARNING.
    await page.getByTestId('log-reset').click();
    // The reset rewrites the URL and the filter form remounts: choose in the new one.
    await page.waitForURL((url) => url.search === '');
    await expect.poll(() => page.getByTestId('log-filter-action').inputValue()).toBe('');
    await chooseOption(page, 'log-filter-result', 'Failure');
    await search(page);
    await page.waitForURL(/[?&]result=failure/);
    // The rows of the unfiltered list stay until the filtered ones come.
    const rows = logList(page).locator('tr.ant-table-row');
    await expect.poll(() => rows.allInnerTexts()).toEqual([expect.stringContaining('Failure')]);
    const refusedRow = logRow(page, 'Sign-in');
    expect(await refusedRow.getByTestId('log-severity').innerText()).toBe('WARNING');
    expect(await refusedRow.getByTestId('log-result').innerText()).toBe('Failure');
    expect(await logRow(page, KEY).count()).toBe(0);
    await shot(page, 'log-failures');

    // In Chinese, the columns are named in Chinese.
    await page.getByTestId('lang-switch').click();
    await page.getByText('中文', { exact: true }).click();
    const header = logList(page).locator('thead');
    await expect.poll(() => header.innerText()).toContain('级别');
    const titles = await header.innerText();
    for (const title of ['创建时间', '操作', '对象', '执行者', '来源平台', '结果', '客户端地址']) {
      expect(titles).toContain(title);
    }
    expect(await refusedRow.count()).toBe(0);
    await logRow(page, '登录').waitFor();
    await page.getByTestId('lang-switch').click();
    await page.getByText('English', { exact: true }).click();
    await expect.poll(() => header.innerText()).toContain('Severity');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits an 800 px screen: the table scrolls inside its card, the page does not', async () => {
    const { page, errors } = await newPage(browser, { width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/log`);
    await logList(page).locator('tr.ant-table-row').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    const table = logList(page).locator('.ant-table-content, .ant-table-body').first();
    const scrolls = await table.evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(scrolls).toBe(true);
    await shot(page, 'log-800');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
