import type { Locator, Page } from 'playwright-core';

/** UI steps shared by the access-management tests: sign in and out, menus, antd controls. */

export async function signInUi(page: Page, base: string, username: string, password: string): Promise<void> {
  // The console may itself be on its way to /login (after a logout it reloads there).
  await page.goto(`${base}/login`).catch((err: Error) => {
    if (!/interrupted by another navigation/.test(err.message)) throw err;
  });
  await page.getByTestId('login-username').waitFor();
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

export async function signInToConsole(
  page: Page,
  base: string,
  username: string,
  password: string,
): Promise<void> {
  await signInUi(page, base, username, password);
  await page.getByTestId('side-menu').waitFor();
}

export async function signOutUi(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  // Signing out ends with a full load of /login (after the console has already routed there
  // in place): wait for that load, or it can arrive later and wipe a login form being filled.
  const loaded = page.waitForEvent('load');
  await page.getByTestId('logout').click();
  await loaded;
  await page.waitForURL(/\/login/);
}

/** Opens a page from the side menu: a group title, then the entry. */
export async function openMenu(page: Page, group: string | null, entry: string): Promise<void> {
  const menu = page.getByTestId('side-menu');
  const item = menu.getByText(entry, { exact: true });
  // The entry is selected once its page is the route. A click that landed while the menu was
  // still settling (a submenu opening or closing as the signed-in console renders) did not
  // navigate: look again and click again.
  const selected = menu.locator('.ant-menu-item-selected').getByText(entry, { exact: true });
  for (let attempt = 1; ; attempt++) {
    if (group && !(await item.isVisible().catch(() => false)))
      await menu.getByText(group, { exact: true }).click();
    await item.click();
    try {
      await selected.waitFor({ timeout: 5000 });
      return;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

/** The dropdown antd opened last (options live in a portal). */
export function openDropdown(page: Page): Locator {
  return page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').last();
}

/** Picks options of an antd Select (single or multiple) by their visible label. */
export async function pickOptions(page: Page, select: Locator, labels: string[]): Promise<void> {
  await select.click();
  for (const label of labels) {
    const dropdown = openDropdown(page);
    await dropdown.waitFor();
    await dropdown.locator('.ant-select-item-option', { hasText: label }).first().click();
  }
  await page.keyboard.press('Escape');
}

/** The list page on screen (kept-alive pages stay in the DOM, hidden). */
export function visibleList(page: Page): Locator {
  return page.locator('[data-testid="list-page"]:visible');
}

/** A table row of the list page on screen holding `text`. */
export function rowWith(page: Page, text: string | RegExp): Locator {
  return visibleList(page).locator('tr.ant-table-row', { hasText: text });
}

/** Ticks one permission (or a whole group/area) in the role editor's tree. */
export async function tickPermission(page: Page, code: string): Promise<void> {
  const node = page
    .getByTestId('permission-tree')
    .locator('.ant-tree-treenode', { has: page.locator(`[data-permission="${code}"]`) });
  await node.locator('.ant-tree-checkbox').click();
}

/** The token a page holds in localStorage. */
export async function storedToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  if (!token) throw new Error('no token in localStorage');
  return token;
}
