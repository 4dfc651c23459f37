import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api } from '@ksp/contracts';
import { startSshd, throwawayAccount, type Sshd } from '../apps/server/src/test/sshd.js';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { ADMIN, initializeByApi, loginByApi } from './support/setup.js';
import { chooseOption, openDropdown, signIn } from './support/ui.js';

const ACCOUNT = `ksp-e2e-${process.pid % 100000}`;
const langs = [
  {
    code: 'en',
    locale: 'en-US',
    width: 1280,
    rotated: 'the credential is at version',
    success: 'Success',
    operator: 'Operator',
  },
  // Below antd's lg breakpoint (992 px): one column of fields.
  { code: 'zh', locale: 'zh-CN', width: 900, rotated: '凭据当前为版本', success: '成功', operator: '操作员' },
] as const;

/**
 * SMS › servers against a real OpenSSH server: add one in the browser with its fingerprint
 * confirmed, test the connection, rotate the password now and see it in the history.
 */
describe('SMS › servers, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let sshd: Sshd;
  let removeAccount: () => void;

  beforeAll(async () => {
    removeAccount = throwawayAccount(ACCOUNT, 'First-pw-e2e-7Qx');
    sshd = await startSshd();
    // The throwaway sshd is on loopback, outside the default networks (KSP_SSH_ALLOWED_NETWORKS).
    ksp = await startKsp({ KSP_SSH_ALLOWED_NETWORKS: '127.0.0.1/32' });
    await initializeByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    await sshd?.stop();
    removeAccount?.();
  });

  for (const lang of langs) {
    it(`adds a server, confirms its fingerprint and rotates its password (${lang.code})`, async () => {
      const token = await loginByApi(ksp.url);
      // The credential holds the account's current password (each language run rotated it before).
      const name = `e2e-${lang.code}`;
      const current = lang.code === 'en' ? 'First-pw-e2e-7Qx' : await currentPassword(token);
      const cred = await apiCall<{ id: string }>(
        ksp.url,
        api.credential.create,
        { name: `${name} root`, type: 'password', value: current },
        token,
      );
      expect(cred.code, cred.msg).toBe(0);

      const { page, errors } = await newPage(browser, { locale: lang.locale, width: lang.width });
      await signIn(page, ksp.url);
      if (lang.code === 'zh') {
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      }
      await page.goto(`${ksp.url}/credential/server`);
      await page.getByTestId('server-add').click();
      await page.getByTestId('server-name').fill(name);
      await page.getByTestId('server-host').fill('127.0.0.1');
      await page.getByTestId('server-port').fill(String(sshd.port));
      await page.getByTestId('server-account').fill(ACCOUNT);
      await chooseOption(page, 'server-credential', `${name} root`);
      await page.getByTestId('server-fetch-fp').click();
      await expect.poll(() => page.getByTestId('server-fp').innerText()).toContain(sshd.fingerprint);
      await page.getByTestId('server-confirm-fp').click();
      // The roles allowed to open a terminal are picked by name (searched on the server), not typed as ids.
      await page.getByTestId('server-terminal-roles').click();
      // The search is the server's, on role names as stored (a built-in role's English name).
      if (lang.code === 'en') await page.keyboard.type('Oper');
      // A multiple select stays open after a choice: click the option, then close it.
      await openDropdown(page).locator('.ant-select-item-option', { hasText: lang.operator }).first().click();
      await page.keyboard.press('Escape');
      // Nothing runs off the side of the page.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await shot(page, `ssh-server-add-${lang.code}`);
      await page.getByTestId('server-submit').click();

      // The detail page: the pinned key, a connection test, then rotate now.
      await expect.poll(() => page.getByTestId('server-pinned-fp').innerText()).toContain(sshd.fingerprint);
      // The detail page names the role, and the server stored its id.
      await expect.poll(() => page.getByTestId('server-terminal-role').innerText()).toBe(lang.operator);
      await page.getByTestId('server-test').click();
      await expect.poll(() => page.getByTestId('server-outcome').innerText()).toContain(`(${ACCOUNT})`);
      await page.getByTestId('server-rotate').click();
      await page.getByTestId('server-rotate-ok').click();
      await expect
        .poll(() => page.getByTestId('server-outcome').innerText(), { timeout: 30_000 })
        .toContain(lang.rotated);
      await expect.poll(() => page.getByTestId('server-history').innerText()).toContain(lang.success);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await shot(page, `ssh-server-detail-${lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();

      // The credential has its second version, and the server logs in with it.
      const detail = await apiCall<{ current_version: number }>(
        ksp.url,
        api.credential.detail,
        undefined,
        token,
        { id: cred.data.id },
      );
      expect(detail.data.current_version).toBe(2);
      lastCredential = cred.data.id;
      // The community licence allows one SMS server: this language's server goes before the
      // next language adds its own (the quota is tested by the server suite).
      const servers = await apiCall<{ data: { id: string }[] }>(
        ksp.url,
        api.sshServer.list,
        undefined,
        token,
        { page: 1, page_size: 50 },
      );
      const gone = await apiCall<{ deleted: number }>(
        ksp.url,
        api.sshServer.delete,
        { ids: servers.data.data.map((s) => s.id) },
        token,
      );
      expect(gone.data.deleted).toBe(1);
    });
  }

  let lastCredential = '';
  async function currentPassword(token: string): Promise<string> {
    const r = await apiCall<{ value: string }>(
      ksp.url,
      api.credential.reveal,
      { id: lastCredential, password: ADMIN.password },
      token,
    );
    return r.data.value;
  }
});
