import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newPage, shot } from './support/browser.js';
import { signOutUi } from './support/console-ui.js';
import { signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

/** Two small PNG images (1×1, different colours): what an administrator uploads as the logo. */
const RED_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const BLUE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPj/HwADBwIAMCbHYQAAAABJRU5ErkJggg==',
  'base64',
);
const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

async function openConfig(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/console/setting/config`);
  await page.getByTestId('config-edit-logo').waitFor();
}

/** Uploads a logo from the logo entry's edit dialog; the dialog shows it at once. */
async function uploadLogo(page: Page, png: Buffer, name: string): Promise<void> {
  await page.getByTestId('config-edit-logo').click();
  const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('logo-upload') });
  await dialog.waitFor();
  await dialog.locator('input[type=file]').setInputFiles({ name, mimeType: 'image/png', buffer: png });
  await expect.poll(() => dialog.getByTestId('logo-preview').getAttribute('src')).toBe(dataUrl(png));
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
}

async function editValue(page: Page, key: string, value: string): Promise<void> {
  await page.getByTestId(`config-edit-${key}`).click();
  await page.getByTestId('config-value').fill(value);
  await page.getByTestId('form-modal-ok').click();
}

describe('settings › configuration, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'config' });

  it('takes a logo and a title that the top bar and the login page show at once, in English', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openConfig(page, ksp.url);
    // The built-in key mark until a logo is uploaded.
    expect(await page.getByTestId('topbar-logo').evaluate((e) => e.tagName.toLowerCase())).toBe('svg');

    await uploadLogo(page, RED_PNG, 'red.png');
    await expect.poll(() => page.getByTestId('topbar-logo').getAttribute('src')).toBe(dataUrl(RED_PNG));

    // A file that is not an image is refused before it is sent.
    await page.getByTestId('config-edit-logo').click();
    const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('logo-upload') });
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByText('The logo must be a PNG, JPEG, WebP or SVG image', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('topbar-logo').getAttribute('src')).toBe(dataUrl(RED_PNG));

    // A value a built-in entry does not take is refused with the field and the rule.
    await editValue(page, 'UKEY_BRIDGE', 'javascript:alert(1)');
    await page
      .getByText('value: the UKEY bridge address must be an http:// or https:// URL', { exact: true })
      .waitFor();
    await page.keyboard.press('Escape');

    await editValue(page, 'title', 'Acme Key Vault');
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('Acme Key Vault');
    await shot(page, 'config-logo-en');

    // Signed out: the login page shows the same logo and title.
    await signOutUi(page);
    await expect.poll(() => page.getByTestId('public-logo').getAttribute('src')).toBe(dataUrl(RED_PNG));
    await page.getByText('Acme Key Vault', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('does the same in Chinese, with the refusals in Chinese', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN' });
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await signIn(page, ksp.url);
    await openConfig(page, ksp.url);
    await expect.poll(() => page.getByTestId('topbar-logo').getAttribute('src')).toBe(dataUrl(RED_PNG));

    await uploadLogo(page, BLUE_PNG, 'blue.png');
    await expect.poll(() => page.getByTestId('topbar-logo').getAttribute('src')).toBe(dataUrl(BLUE_PNG));

    await editValue(page, 'title', '   ');
    await page.getByText('value：标题长度须为 1 到 64 个字符', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('topbar-title').innerText()).toBe('Acme Key Vault');

    await editValue(page, 'title', '蓝色密钥库');
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('蓝色密钥库');
    await shot(page, 'config-logo-zh');
    await signOutUi(page);
    await expect.poll(() => page.getByTestId('public-logo').getAttribute('src')).toBe(dataUrl(BLUE_PNG));
    await page.getByText('蓝色密钥库', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
