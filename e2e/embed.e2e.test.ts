import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, shot } from './support/browser.js';
import { startKsp, type RunningServer } from './support/server.js';
import { freePort } from '../apps/server/src/test/free-port.js';
import { initializeByApi, loginByApi } from './support/setup.js';

/** A host page of another origin that frames the console and answers its token requests. */
function hostPage(kspUrl: string, token: string): string {
  return `<!doctype html><html><body style="margin:0">
<h1 id="host-title" style="font:16px sans-serif;margin:4px">Host portal</h1>
<iframe id="ksp" src="${kspUrl}/" style="width:1200px;height:700px;border:0"></iframe>
<script>
  window.received = [];
  const frame = document.getElementById('ksp');
  window.addEventListener('message', (event) => {
    if (event.origin !== ${JSON.stringify(kspUrl)}) return;
    let data = event.data;
    if (typeof data === 'string') { try { data = JSON.parse(data); } catch { return; } }
    window.received.push(data && data.type);
    if (data && data.type === 'initToken') {
      frame.contentWindow.postMessage({ type: 'refreshToken', token: ${JSON.stringify(token)} }, ${JSON.stringify(kspUrl)});
    }
  });
  window.sendToConsole = (message) => frame.contentWindow.postMessage(message, ${JSON.stringify(kspUrl)});
</script></body></html>`;
}

describe('the console embedded in another page', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let host: Server;
  let hostUrl: string;
  let token: string;

  beforeAll(async () => {
    const hostPort = await freePort();
    hostUrl = `http://127.0.0.1:${hostPort}`;
    ksp = await startKsp({ KSP_FRAME_ANCESTORS: `'self' ${hostUrl}` });
    await initializeByApi(ksp.url);
    token = await loginByApi(ksp.url);
    host = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(hostPage(ksp.url, token));
    });
    await new Promise<void>((resolve) => host.listen(hostPort, '127.0.0.1', resolve));
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => host?.close(r));
    await ksp?.stop();
  });

  it('asks the parent for a token, signs in with it and hides the top bar', async () => {
    const { page, errors } = await newPage(browser, { width: 1280, height: 800 });
    await page.goto(hostUrl);
    const frame = page.frameLocator('#ksp');
    await frame.getByTestId('side-menu').waitFor({ timeout: 30_000 });
    expect(await frame.getByTestId('topbar').count()).toBe(0);
    const received = await page.evaluate(() => (window as unknown as { received: string[] }).received);
    expect(received).toContain('initToken');
    // Each request is announced to the parent.
    expect(received.filter((t) => t !== 'initToken').length).toBeGreaterThan(0);
    await shot(page, 'embedded');

    // cleanToken: the console forgets the token and waits for a new one.
    await page.evaluate(() =>
      (window as unknown as { sendToConsole: (m: unknown) => void }).sendToConsole({ type: 'cleanToken' }),
    );
    await expect
      .poll(async () =>
        page.evaluate(
          () =>
            (window as unknown as { received: string[] }).received.filter((t) => t === 'initToken').length,
        ),
      )
      .toBeGreaterThan(1);
    await frame.getByTestId('side-menu').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
