import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { startSshd, throwawayAccount, type Sshd } from '../apps/server/src/test/sshd.js';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { freePort } from '../apps/server/src/test/free-port.js';
import { ADMIN, initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';

const ACCOUNT = `ksp-e2t-${process.pid % 100000}`;
const PASSWORD = 'Term-pw-e2e-7Qx!';

/** A portal of another origin framing the console: it answers the console's token request. */
function hostPage(kspUrl: string, token: string): string {
  return `<!doctype html><html><body style="margin:0">
<iframe id="ksp" src="${kspUrl}/" style="width:1200px;height:700px;border:0"></iframe>
<script>
  const frame = document.getElementById('ksp');
  window.addEventListener('message', (event) => {
    if (event.origin !== ${JSON.stringify(kspUrl)}) return;
    let data = event.data;
    if (typeof data === 'string') { try { data = JSON.parse(data); } catch { return; } }
    if (data && data.type === 'initToken') {
      frame.contentWindow.postMessage({ type: 'refreshToken', token: ${JSON.stringify(token)} }, ${JSON.stringify(kspUrl)});
    }
  });
  window.openTerminal = (path) => { frame.src = ${JSON.stringify(kspUrl)} + path; };
</script></body></html>`;
}

type Surface = Page | FrameLocator;

/** Types `id` in the open terminal and waits for the account's uid in its rows. */
async function runId(surface: Surface, uid: string) {
  await surface.getByTestId('terminal-title').waitFor({ timeout: 30_000 });
  const input = surface.locator('.xterm-helper-textarea');
  await input.waitFor({ state: 'attached' });
  await expect.poll(() => surface.getByTestId('terminal-status').count(), { timeout: 30_000 }).toBe(0);
  await input.focus();
  await input.pressSequentially('id');
  await input.press('Enter');
  await expect.poll(() => surface.locator('.xterm-rows').innerText(), { timeout: 30_000 }).toContain(uid);
}

/**
 * The web SSH terminal against a real OpenSSH server: open it from the server page, type `id`,
 * read the answer, then replay the session's recording on the server page; in English and
 * Chinese, standalone and embedded in another site's page.
 */
describe('SMS › web SSH terminal, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let sshd: Sshd;
  let removeAccount: () => void;
  let token: string;
  let serverId: string;
  let uid: string;
  let host: Server;
  let hostUrl: string;

  beforeAll(async () => {
    removeAccount = throwawayAccount(ACCOUNT, PASSWORD);
    sshd = await startSshd();
    const hostPort = await freePort();
    hostUrl = `http://127.0.0.1:${hostPort}`;
    ksp = await startKsp({
      KSP_FRAME_ANCESTORS: `'self' ${hostUrl}`,
      // The throwaway sshd is on loopback, outside the default networks.
      KSP_SSH_ALLOWED_NETWORKS: '127.0.0.1/32',
    });
    await initializeByApi(ksp.url);
    browser = await launch();
    token = await loginByApi(ksp.url);
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
    serverId = server.data.id;
    // `uid=1001(ksp-e2t-…)`: the first word of the account's `id` line (the terminal draws spaces as it likes).
    uid = spawnSync('id', [ACCOUNT], { encoding: 'utf8' }).stdout.trim().split(' ')[0]!;
    host = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(hostPage(ksp.url, token));
    });
    await new Promise<void>((resolve) => host.listen(hostPort, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => host?.close(r));
    await ksp?.stop();
    await sshd?.stop();
    removeAccount?.();
  });

  for (const [locale, lang] of [
    ['en-US', 'en'],
    ['zh-CN', 'zh'],
  ] as const) {
    it(`opens the terminal in a new tab, runs \`id\` on the server, then replays the recording (${lang})`, async () => {
      const { page, context, errors } = await newPage(browser, { locale, width: 1280 });
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/credential/detail-server/${serverId}`);
      const [tab] = await Promise.all([
        context.waitForEvent('page'),
        page.getByTestId('server-open-terminal').click(),
      ]);
      await tab.waitForLoadState();
      // Nothing secret in the address: the server id only.
      expect(new URL(tab.url()).pathname).toBe('/linux-ssh');
      expect(tab.url()).not.toContain(PASSWORD);
      await runId(tab, uid);
      await shot(tab, `ssh-terminal-${lang}`);
      await tab.locator('.xterm-helper-textarea').pressSequentially('exit');
      await tab.locator('.xterm-helper-textarea').press('Enter');
      await tab.close();

      // The session is on the server page, and its recording replays what the server printed.
      await page.reload();
      const sessions = page.getByTestId('server-sessions');
      await sessions.waitFor();
      const ended = lang === 'en' ? 'shell exited' : 'Shell 已退出';
      await expect.poll(() => sessions.innerText(), { timeout: 15_000 }).toContain(ended);
      expect(await page.getByText(lang === 'en' ? 'Terminal sessions' : '终端会话').count()).toBe(1);
      // The latest session first (antd spaces a two-character Chinese label: "回 放").
      const replay = sessions.locator('[data-testid^="session-replay-"]').first();
      expect((await replay.innerText()).replace(/\s/g, '')).toBe(lang === 'en' ? 'Replay' : '回放');
      await replay.click();
      const player = page.getByTestId('session-player');
      await player.waitFor({ timeout: 15_000 });
      await expect.poll(() => player.innerText(), { timeout: 20_000 }).toContain(uid);
      await shot(page, `ssh-replay-${lang}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('runs in a portal of another site that frames the console', async () => {
    const { page, errors } = await newPage(browser, { width: 1280, height: 800 });
    await page.goto(hostUrl);
    const frame = page.frameLocator('#ksp');
    await frame.getByTestId('side-menu').waitFor({ timeout: 30_000 });
    await page.evaluate(
      (path) => (window as unknown as { openTerminal(p: string): void }).openTerminal(path),
      `/linux-ssh?id=${serverId}`,
    );
    await runId(frame, uid);
    expect(await frame.getByTestId('topbar').count()).toBe(0);
    await shot(page, 'ssh-terminal-embedded');
    expect(errors).toEqual([]);
  });
});
