import { constants, createCipheriv, generateKeyPairSync, privateDecrypt, type KeyObject } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { ADMIN } from './setup.js';

/** Signs in through the login page and waits for the layout (the top bar: a phone hides the side menu). */
export async function signIn(page: Page, base: string, username = ADMIN.username, password = ADMIN.password) {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  await page.getByTestId('topbar').waitFor();
}

/** The dropdown of the antd select that is open now. */
export function openDropdown(page: Page): Locator {
  return page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');
}

async function shows(locator: Locator, text: string, timeoutMs = 2000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if ((await locator.innerText()).includes(text)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/**
 * Opens an antd select (by test id) and clicks the option showing `text`, until the select
 * shows it (a click during the dropdown's opening motion can be lost).
 */
export async function chooseOption(page: Page, testId: string, text: string): Promise<void> {
  const select = page.getByTestId(testId);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (!(await openDropdown(page).isVisible())) await select.click();
    const option = openDropdown(page).locator('.ant-select-item-option').filter({ hasText: text }).first();
    await option.waitFor();
    await page.waitForTimeout(150);
    await option.click();
    if (await shows(select, text)) {
      await openDropdown(page).waitFor({ state: 'hidden' });
      return;
    }
  }
  throw new Error(`Could not choose "${text}" in ${testId}`);
}

/** An RSA key pair whose public half is handed to the console as Base64 SPKI DER. */
export function rsaWrappingKey(modulusLength = 2048): { spkiBase64: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength });
  return { spkiBase64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKey };
}

/** RSA-OAEP with SHA-256 (the console's RSA wrapping), decrypted in Node. */
export function rsaOaepUnwrap(privateKey: KeyObject, wrappedBase64: string): Buffer {
  return privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(wrappedBase64, 'base64'),
  );
}

/** The AES key check value: the first 3 bytes of a zero block encrypted with the key (ECB). */
export function aesKcv(key: Buffer): string {
  const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.alloc(16)), cipher.final()])
    .subarray(0, 3)
    .toString('hex')
    .toUpperCase();
}
