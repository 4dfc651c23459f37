import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { newPage, shot } from './support/browser.js';
import { signInToConsole, signInUi, storedToken } from './support/console-ui.js';
import { ADMIN } from './support/setup.js';
import { apiCall } from './support/server.js';
import { api } from '@ksp/contracts';
import { consoleRun } from './support/run.js';

describe('the console, from a fresh install', () => {
  const { ksp, browser } = consoleRun({
    name: 'console',
    env: { KSP_SESSION_IDLE_SECONDS: '600' },
    initialize: false,
  });

  it('initializes, activates, signs in and shows the layout', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${ksp.url}/`);
    await page.waitForURL(/\/system-active/);
    await page.getByTestId('init-start').click();
    const kcvs: string[] = [];
    let previous = '';
    for (let i = 1; i <= 3; i++) {
      const value = page.getByTestId('init-component-value');
      await value.waitFor();
      // The next component replaces the last one only when the server answers: until then the
      // page still shows the last one (whose checkbox is ticked), so wait for the new value.
      await expect.poll(async () => (await value.innerText()).replace(/\s/g, '')).not.toBe(previous);
      previous = (await value.innerText()).replace(/\s/g, '');
      expect(previous).toMatch(/^[0-9A-F]{64}$/);
      kcvs.push((await page.getByTestId('init-kcv').innerText()).trim());
      await page.getByTestId('init-saved-checkbox').check();
      await page.getByTestId(i < 3 ? 'init-next' : 'init-finish').click();
    }
    expect(kcvs.every((k) => /^[0-9A-F]{6}$/.test(k))).toBe(true);
    await page.getByText(/Root key KCV: [0-9A-F]{6}/).waitFor();
    await page.getByRole('button', { name: 'Continue to activation' }).click();
    await page.waitForURL(/\/user-active/);
    await page.getByTestId('activate-skip-ukey').click();
    await page.getByTestId('activate-username').fill(ADMIN.username);
    await page.getByTestId('activate-password').fill(ADMIN.password);
    await page.getByTestId('activate-confirm').fill(ADMIN.password);
    await page.getByTestId('activate-email').fill(ADMIN.email);
    await page.getByTestId('activate-submit').click();
    await page.getByTestId('side-menu').waitFor();
    await page.waitForURL(/\/console\/dashboard/);
    await expect.poll(() => page.getByTestId('dashboard-users').innerText()).toContain('1');
    await shot(page, 'dashboard-first');
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('Key Management System');
    await expect.poll(() => page.getByTestId('version').innerText()).toContain('v1.9.0');
    expect(await page.title()).toMatch(/Dashboard/);
    await shot(page, 'dashboard-en');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('navigates with the menu, tags and breadcrumb; switches language to 中文 and back', async () => {
    const { page, errors } = await newPage(browser);
    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    await page.getByTestId('side-menu').getByText('Settings').click();
    await page.getByTestId('side-menu').getByText('Configuration').click();
    await page.waitForURL(/\/console\/setting\/config/);
    await expect
      .poll(() => page.getByTestId('breadcrumb').innerText())
      .toMatch(/Settings[\s\S]*Configuration/);
    const tags = page.getByTestId('tags-view').getByTestId('tag');
    await expect.poll(() => tags.count()).toBe(2);
    await page.getByTestId('list-page').getByText('version', { exact: true }).waitFor();

    // A cached view keeps what was typed after switching tabs.
    await page.getByTestId('list-search').fill('ver');
    // (Typed before the tab switch: a slow machine must not blur what the cache is tested on.)
    await expect.poll(() => page.getByTestId('list-search').inputValue()).toBe('ver');
    await tags.filter({ hasText: 'Dashboard' }).click();
    await page.waitForURL(/\/console\/dashboard/);
    await tags.filter({ hasText: 'Configuration' }).click();
    // Read once the view is shown again (its effects re-run then): a poll could pass on the
    // hidden view's value before showing it reset the form.
    await page.waitForURL(/\/console\/setting\/config/);
    await page.locator('[data-testid="list-page"]:visible').waitFor();
    await expect.poll(() => page.getByTestId('list-search').inputValue()).toBe('ver');

    // Closing the tab returns to the remaining one; the affixed Dashboard cannot be closed.
    await tags.filter({ hasText: 'Configuration' }).getByTestId('tag-close').click();
    await expect.poll(() => tags.count()).toBe(1);
    expect(await tags.first().getByTestId('tag-close').count()).toBe(0);

    await page.getByTestId('lang-switch').click();
    await page.getByText('中文', { exact: true }).click();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('密钥管理系统');
    await expect.poll(() => page.getByTestId('side-menu').innerText()).toContain('仪表盘');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'language')?.value).toBe('zh');
    await shot(page, 'dashboard-zh');
    await page.reload();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('密钥管理系统');
    await page.getByTestId('lang-switch').click();
    await page.getByText('English', { exact: true }).click();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('Key Management System');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('switches domain from the top bar with a new token', async () => {
    const { page } = await newPage(browser);
    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    const token = await storedToken(page);
    const created = await apiCall<{ id: string }>(
      ksp.url,
      api.domain.create,
      { name: 'finance-department', description: '' },
      token,
    );
    expect(created.code).toBe(0);
    // Creating a domain does not make its creator a member: join it explicitly.
    const me = await apiCall<{ userinfo: { id: string } }>(ksp.url, api.user.info, undefined, token);
    const joined = await apiCall(
      ksp.url,
      api.user.domainAddUser,
      { domain_id: created.data.id, user_ids: [me.data.userinfo.id] },
      token,
    );
    expect(joined.code).toBe(0);
    await page.reload();
    const switcher = page.getByTestId('domain-switcher');
    await switcher.waitFor();
    await switcher.click();
    // Names are cut to 10 characters with an ellipsis.
    await page.getByText('finance-de...', { exact: true }).click();
    await expect.poll(() => page.getByTestId('domain-switcher').innerText()).toContain('finance-de...');
    // The switch reloads the console: read the new token whenever no navigation is under way.
    let newToken = token;
    await expect
      .poll(async () => {
        newToken = await storedToken(page).catch(() => token);
        return newToken;
      })
      .not.toBe(token);
    const info = await apiCall<{ userinfo: { domain: string } }>(ksp.url, api.user.info, undefined, newToken);
    expect(info.data.userinfo.domain).toBe('finance-department');
    expect((await apiCall(ksp.url, api.user.info, undefined, token)).code).not.toBe(0);
    await page.context().close();
  });

  it('tells the user when the session expired, then signs out', async () => {
    const { page } = await newPage(browser);
    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    // Make this session idle for longer than the server allows.
    const db = new BetterSqlite3(join(ksp.dataDir, 'ksp.sqlite'));
    db.prepare('update session set last_seen_at = ?').run(new Date(Date.now() - 3600_000).toISOString());
    db.close();
    // The server trusts what it read about a session for up to a second (per-node cache):
    // a session that really went idle would have been out of it long before.
    await page.waitForTimeout(1500);
    await page.getByTestId('side-menu').getByText('Settings').click();
    await page.getByTestId('side-menu').getByText('Configuration').click();
    await page.getByText('Your identity information has expired. Please log in again!').waitFor();
    // The page stays drawn under the dialog, not blank.
    await page.locator('[data-testid="list-page"]:visible').waitFor();
    await page.getByRole('button', { name: 'Log In Again' }).click();
    await page.waitForURL(/\/login/);

    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await page.waitForURL(/\/login/);
    // Logging out reloads the page: read the storage once it has settled.
    await expect
      .poll(async () => {
        try {
          const keys = await page.evaluate(() => Object.keys(localStorage));
          return keys.filter((k) => /token|user/i.test(k) && !/time/i.test(k));
        } catch {
          return ['(page still loading)'];
        }
      })
      .toEqual([]);
    await page.goto(`${ksp.url}/console/setting/config`);
    await page.waitForURL(/\/login\?redirect=/);
    await page.context().close();
  });

  it('shows every side-menu label whole, in English and in Chinese', async () => {
    const { page, errors } = await newPage(browser);
    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    const menu = page.getByTestId('side-menu');
    /** Labels the menu cuts (an ellipsis): none at the menu's width. */
    const cutLabels = () =>
      menu.evaluate((root) =>
        [...root.querySelectorAll('.ant-menu-title-content, .ant-menu-item, .ant-menu-submenu-title')]
          .filter((el) => el.scrollWidth > el.clientWidth)
          .map((el) => el.textContent),
      );
    await menu.getByText('Access management').click();
    await menu.getByText('Registration tokens').waitFor();
    await menu.getByText('Settings').click();
    await menu.getByText('Password policy').waitFor();
    expect(await cutLabels()).toEqual([]);
    await page.getByTestId('lang-switch').click();
    await page.getByText('中文', { exact: true }).click();
    await menu.getByText('访问管理').waitFor();
    expect(await cutLabels()).toEqual([]);
    await page.getByTestId('lang-switch').click();
    await page.getByText('English', { exact: true }).click();
    await menu.getByText('Access management').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('works on a 375 px phone screen', async () => {
    const { page, errors } = await newPage(browser, { width: 375, height: 740 });
    // On a phone the menu is a closed drawer: wait for the dashboard, not for the menu.
    await signInUi(page, ksp.url, ADMIN.username, ADMIN.password);
    await page.waitForURL(/\/console\/dashboard/);
    const menu = page.getByTestId('side-menu');
    const menuBox = (await menu.isVisible()) ? await menu.boundingBox() : null;
    expect(menuBox === null || menuBox.x + menuBox.width <= 0 || menuBox.width === 0).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot(page, 'dashboard-375');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
