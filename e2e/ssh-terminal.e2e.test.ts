import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api } from '@ksp/contracts';
import { startSshd, throwawayAccount, type Sshd } from '../apps/server/src/test/sshd.js';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { ADMIN, initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';

const ACCOUNT = `ksp-e2t-${process.pid % 100000}`;
const PASSWORD = 'Term-pw-e2e-7Qx!';

/** The web SSH terminal against a real OpenSSH server: open it from the server page, type `id`, read the answer. */
describe('SMS › web SSH terminal, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let sshd: Sshd;
  let removeAccount: () => void;

  beforeAll(async () => {
    removeAccount = throwawayAccount(ACCOUNT, PASSWORD);
    sshd = await startSshd();
    ksp = await startKsp();
    await initializeByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    await sshd?.stop();
    removeAccount?.();
  });

  it('opens the terminal in a new tab from the server page and runs `id` on the server', async () => {
    const token = await loginByApi(ksp.url);
    const cred = await apiCall<{ id: string }>(
      ksp.url,
      api.credential.create,
      { name: 'term root', type: 'password', value: PASSWORD },
      token,
    );
    expect(cred.code, cred.msg).toBe(0);
    const server = await apiCall<{ id: string }>(
      ksp.url,
      api.sshServer.create,
      {
        name: 'term-e2e',
        host: '127.0.0.1',
        port: sshd.port,
        account: ACCOUNT,
        credential_id: cred.data.id,
        host_key_fingerprint: sshd.fingerprint,
        terminal_users: [ADMIN.username],
      },
      token,
    );
    expect(server.code, server.msg).toBe(0);
    // `uid=1001(ksp-e2t-…)`: the first word of the account's `id` line (the terminal draws spaces as it likes).
    const uid = spawnSync('id', [ACCOUNT], { encoding: 'utf8' }).stdout.trim().split(' ')[0]!;

    const { page, context, errors } = await newPage(browser, { locale: 'en-US', width: 1280 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/credential/detail-server/${server.data.id}`);
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByTestId('server-open-terminal').click(),
    ]);
    await tab.waitForLoadState();
    // Nothing secret in the address: the server id only.
    expect(new URL(tab.url()).pathname).toBe('/linux-ssh');
    expect(tab.url()).not.toContain(PASSWORD);
    await tab.getByTestId('terminal-title').waitFor();
    await tab.locator('.xterm-helper-textarea').waitFor({ state: 'attached' });
    await expect.poll(() => tab.getByTestId('terminal-status').count(), { timeout: 30_000 }).toBe(0);
    await tab.locator('.xterm-helper-textarea').focus();
    await tab.keyboard.type('id');
    await tab.keyboard.press('Enter');
    await expect.poll(() => tab.locator('.xterm-rows').innerText(), { timeout: 30_000 }).toContain(uid);
    await shot(tab, 'ssh-terminal-en');
    expect(errors).toEqual([]);
    await context.close();
  });
});
