import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { enrolAgent } from './support/agent.js';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { freePort } from '../apps/server/src/test/free-port.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';

/** The TDE and RDM sub-consoles: their product tiles, their first list page, a client of each. */
const areas = {
  cte: { product: 'tde', tokenCall: api.user.tdeToken, list: '/cte/clients/main', row: 'client-row-sub-db' },
  rdm: {
    product: 'rdm',
    tokenCall: api.user.rdmToken,
    list: '/rdm/clients/main',
    row: 'client-row-sub-files',
  },
} as const;
type Area = keyof typeof areas;

const langs = [
  {
    code: 'en',
    locale: 'en-US',
    // docs/console.md#products-and-sub-consoles.
    titles: { cte: 'TDE', rdm: 'RDM' },
    healthy: 'Healthy',
    rwpOnly: 'Ransomware protection only',
  },
  {
    code: 'zh',
    locale: 'zh-CN',
    titles: { cte: '透明加密', rdm: '防勒索' },
    healthy: '健康',
    rwpOnly: '仅勒索防护',
  },
] as const;

/**
 * A portal of another origin that frames a sub-console and hands it a token scoped to it with
 * the embedding protocol (docs/console.md#embedding): the frame asks `{type:'initToken'}`, the
 * portal answers `{type:'refreshToken', token}`. The portal's own back end got that token from
 * KSP's `user/<area>_token` call. The frame is named `ksp-sub-<area>` as the product page names
 * its own (apps/web/src/api/parent-window.ts): each sub-console keeps its own session.
 */
function portalPage(kspUrl: string, area: Area, token: string): string {
  return `<!doctype html><html><body style="margin:0">
<h1 style="font:16px sans-serif;margin:4px">Operations portal</h1>
<iframe id="ksp" name="ksp-sub-${area}" src="${kspUrl}/iframe-init" style="width:1200px;height:700px;border:0"></iframe>
<script>
  window.received = [];
  const frame = document.getElementById('ksp');
  window.addEventListener('message', (event) => {
    if (event.origin !== ${JSON.stringify(kspUrl)}) return;
    const data = event.data;
    window.received.push(data && data.type);
    if (data && data.type === 'initToken') {
      frame.contentWindow.postMessage({ type: 'refreshToken', token: ${JSON.stringify(token)} }, ${JSON.stringify(kspUrl)});
    }
  });
  window.openInFrame = (path) => { frame.src = ${JSON.stringify(kspUrl)} + path; };
</script></body></html>`;
}

/**
 * The TDE and RDM sub-consoles, opened from the product page in a new tab (standalone, with
 * their top-bar titles), and embedded in a page of another origin; in English and Chinese.
 * (product.e2e.test.ts covers KADP embedded in the product page itself and KMS in a tab.)
 */
describe('TDE and RDM sub-consoles, standalone and embedded in another site, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let portal: Server;
  let portalUrl = '';
  let adminToken = '';

  beforeAll(async () => {
    const portalPort = await freePort();
    portalUrl = `http://127.0.0.1:${portalPort}`;
    ksp = await startKsp({ KSP_FRAME_ANCESTORS: `'self' ${portalUrl}` });
    await initializeByApi(ksp.url);
    adminToken = await loginByApi(ksp.url);
    const enrol = async (usage: 'cte' | 'rdm', name: string) =>
      (
        await enrolAgent(ksp.url, adminToken, {
          usage,
          tokenName: `sub-${usage}`,
          name,
          host: `${name}.e2e.test`,
          mac: '02:00:00:00:00:03',
          agentVersion: '7.0.0',
        })
      ).clientId;
    await enrol('cte', 'sub-db');
    const rdmId = await enrol('rdm', 'sub-files');
    const gp = await apiCall(
      ksp.url,
      api.rdmClient.guardPointCreate,
      { client_id: rdmId, path: '/data', type: 'rwp' },
      adminToken,
    );
    expect(gp.code, gp.msg).toBe(0);

    // The portal: /cte and /rdm frame that sub-console, with a token its back end asks KSP for.
    portal = createServer((req, res) => {
      const area = (req.url ?? '').slice(1) as Area;
      if (!Object.hasOwn(areas, area)) {
        res.writeHead(404).end();
        return;
      }
      void apiCall<{ token: string }>(ksp.url, areas[area].tokenCall, {}, adminToken).then((scoped) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(portalPage(ksp.url, area, scoped.data.token));
      });
    });
    await new Promise<void>((resolve) => portal.listen(portalPort, '127.0.0.1', resolve));
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => portal?.close(r));
    await ksp?.stop();
  });

  /** Waits for the area's client row and checks the visible, translated state it shows. */
  async function expectClient(
    surface: Page | ReturnType<Page['frameLocator']>,
    area: Area,
    lang: (typeof langs)[number],
  ) {
    const row = surface.getByTestId(areas[area].row);
    await row.waitFor({ timeout: 20_000 });
    expect(await row.innerText()).toContain(area === 'cte' ? lang.healthy : lang.rwpOnly);
  }

  for (const lang of langs) {
    it(`opens TDE and RDM from the product page in a new tab, standalone, with their titles (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/product`);
      for (const area of Object.keys(areas) as Area[]) {
        const [tab] = await Promise.all([
          page.context().waitForEvent('page'),
          page.getByTestId(`product-open-tab-${areas[area].product}`).click(),
        ]);
        await tab.waitForURL((url) => url.pathname.startsWith(`/${area}/`));
        await expect.poll(() => tab.getByTestId('topbar-title').innerText()).toBe(lang.titles[area]);
        // Its clients list (its first page), with the client from the real server.
        if (new URL(tab.url()).pathname !== areas[area].list) await tab.goto(`${ksp.url}${areas[area].list}`);
        await expectClient(tab, area, lang);
        expect(await tab.getByTestId('topbar-title').innerText()).toBe(lang.titles[area]);
        // The tab's session is a scoped one of its own.
        const scoped = await tab.evaluate((key) => sessionStorage.getItem(key), `ksp-sub-${area}:token`);
        expect(scoped).toBeTruthy();
        await shot(tab, `sub-console-tab-${area}-${lang.code}`);
        await tab.close();
      }
      expect(errors).toEqual([]);
      await page.context().close();
    });

    it(`embeds TDE and RDM in a page of another origin that hands over a scoped token (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      for (const area of Object.keys(areas) as Area[]) {
        await page.goto(`${portalUrl}/${area}`);
        const frame = page.frameLocator('#ksp');
        // Signed in with the portal's token: its side menu, no top bar (embedded).
        await frame.getByTestId('side-menu').waitFor({ timeout: 20_000 });
        expect(await frame.getByTestId('topbar').count()).toBe(0);
        const received = await page.evaluate(() => (window as unknown as { received: string[] }).received);
        expect(received).toContain('initToken');
        await page.evaluate(
          (path) => (window as unknown as { openInFrame: (p: string) => void }).openInFrame(path),
          areas[area].list,
        );
        await expectClient(frame, area, lang);
        // The token the frame holds carries only its area's permissions.
        const kspFrame = page.frames().find((f) => f.url().startsWith(ksp.url))!;
        const frameToken = await kspFrame.evaluate(
          (key) => sessionStorage.getItem(key),
          `ksp-sub-${area}:token`,
        );
        expect(frameToken).toBeTruthy();
        const info = await apiCall<{ userinfo: { permissions: string[] } }>(
          ksp.url,
          api.user.info,
          undefined,
          frameToken!,
        );
        expect(info.data.userinfo.permissions.length).toBeGreaterThan(0);
        expect(info.data.userinfo.permissions.every((p) => p.startsWith(`${area}:`))).toBe(true);
        await shot(page, `sub-console-embedded-${area}-${lang.code}`);
      }
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});
