import { beforeAll, describe, expect, it } from 'vitest';
import { createHash, sign } from 'node:crypto';
import { api, signedText } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { storedToken } from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { boxOf, inside, viewportBox } from './support/geometry.js';
import { loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { enrolAgent } from './support/agent.js';
import { consoleRun } from './support/run.js';

const langs = [
  {
    code: 'en',
    locale: 'en-US',
    tde: 'Transparent Encryption',
    rdm: 'Anti-Ransomware',
    clients: 'Clients',
    unlicensed: 'Unlicensed',
    console: 'Key Management System',
    linux: 'Linux',
    title: 'Enrol a client',
  },
  {
    code: 'zh',
    locale: 'zh-CN',
    tde: '透明加密',
    rdm: '防勒索',
    clients: '客户端',
    unlicensed: '未授权',
    console: '密钥管理系统',
    linux: 'Linux',
    title: '注册客户端',
  },
] as const;

/** Products: the sub-console tiles, opened in a new tab and embedded with their own tokens; /remote-add. */
describe('product page and /remote-add, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'product' });
  let clientId = '';

  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    const agent = await enrolAgent(ksp.url, token, {
      usage: 'kadp',
      tokenName: 'e2e-product-apps',
      name: 'e2e-product-app',
      host: 'product.e2e.test',
      mac: '02:00:00:00:00:02',
      agentVersion: '1.0.0',
    });
    clientId = agent.clientId;
    // The client encrypts with a key of its domain, signing the call with its own key.
    const key = await apiCall<{ id: string }>(
      ksp.url,
      api.key.create,
      { name: 'e2e-app-key', algorithm: 'AES-256', usage_mask: 0xc },
      token,
    );
    expect(key.code).toBe(0);
    const payload = JSON.stringify({ op: 'encrypt', key_id: key.data.id, plaintext: 'aGVsbG8=' });
    const ts = Date.now();
    const digest = createHash('sha256').update(payload).digest('hex');
    const signature = sign('sha256', Buffer.from(signedText(clientId, ts, digest)), agent.key).toString(
      'base64',
    );
    const enc = await apiCall<{ ciphertext: string }>(ksp.url, api.kadpOps.crypto, {
      client_id: clientId,
      timestamp: ts,
      payload,
      signature,
    });
    expect(enc.code).toBe(0);
  });

  for (const lang of langs) {
    it(`shows the tiles with live figures and opens KADP embedded and KMS in a new tab (${lang.code})`, async () => {
      // A laptop's window: the tiles fill it, and what opens below them is under the fold.
      const { page, errors } = await newPage(browser, { locale: lang.locale, width: 1440, height: 900 });
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/product`);
      const kadp = page.getByTestId('product-tile-kadp');
      await kadp.waitFor();
      await expect.poll(() => page.getByTestId('product-figure-kadp-clients').innerText()).toContain('1');
      expect(await page.getByTestId('product-figure-kadp-clients').innerText()).toContain(lang.clients);
      expect(await kadp.innerText()).toContain(lang.unlicensed);
      expect(await page.getByTestId('product-tile-tde').innerText()).toContain(lang.tde);
      expect(await page.getByTestId('product-tile-rdm').innerText()).toContain(lang.rdm);
      expect(await page.getByTestId('topbar-title').innerText()).toBe(lang.console);
      await shot(page, `product-${lang.code}`);
      const consoleToken = await storedToken(page);

      // Embedded: the frame asks this page for its token and shows the KADP clients.
      await page.getByTestId('product-open-embedded-kadp').click();
      const frame = page.frameLocator('[data-testid="product-embedded-frame"]');
      await frame.getByTestId('client-row-e2e-product-app').waitFor();
      // The opened console is brought into the window, whole (title bar to the frame's
      // bottom), with the frame's first rows (the client just listed) on screen.
      await expect
        .poll(
          async () => {
            const card = await boxOf(page.getByTestId('product-embedded'));
            return inside(card, viewportBox(page)) ? 'on screen' : `top ${card.y}, height ${card.height}`;
          },
          { timeout: 5000 },
        )
        .toBe('on screen');
      // (Its row, as wide as the frame's table, may run past the right edge: its height counts.)
      const row = await boxOf(frame.getByTestId('client-row-e2e-product-app'));
      expect(row.y).toBeGreaterThanOrEqual(0);
      expect(row.y + row.height).toBeLessThanOrEqual(viewportBox(page).height);
      await shot(page, `product-embedded-${lang.code}`);
      // Embedded: no top bar.
      expect(await frame.getByTestId('topbar').count()).toBe(0);
      // The console keeps its own session; the frame's token is another, scoped one.
      expect(await storedToken(page)).toBe(consoleToken);
      const frameToken = await page
        .frames()
        .find((f) => f.name() === 'ksp-sub-kadp')!
        .evaluate(() => sessionStorage.getItem('ksp-sub-kadp:token'));
      expect(frameToken).toBeTruthy();
      expect(frameToken).not.toBe(consoleToken);
      const scopedInfo = await apiCall<{ userinfo: { permissions: string[] } }>(
        ksp.url,
        api.user.info,
        undefined,
        frameToken!,
      );
      expect(scopedInfo.data.userinfo.permissions.every((p) => p.startsWith('kadp:'))).toBe(true);
      await page.getByTestId('product-embedded-close').click();

      // A new tab: standalone, with the KMS top-bar title, on its key list.
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByTestId('product-open-tab-kms').click(),
      ]);
      await tab.waitForURL((url) => url.pathname.startsWith('/kms/key'));
      await expect.poll(() => tab.getByTestId('topbar-title').innerText()).toBe('KMS');
      expect(await tab.evaluate(() => sessionStorage.getItem('ksp-sub-kms:token'))).toBeTruthy();
      // Still the console's session in the console tab, still on the console.
      expect(await storedToken(page)).toBe(consoleToken);
      await shot(tab, `product-kms-tab-${lang.code}`);
      await tab.close();
      expect(errors).toEqual([]);
      await page.context().close();
    });

    it(`/remote-add renders the enrolment command for a token in the fragment (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/remote-add#token=ksprt_e2eToken-1&type=tde`);
      const linux = page.getByTestId('remote-add-linux');
      await linux.waitFor();
      expect(await page.getByTestId('remote-add-page').innerText()).toContain(lang.title);
      expect(await linux.innerText()).toContain(
        `ksp-agent enrol --server '${ksp.url}' --token 'ksprt_e2eToken-1' --type tde`,
      );
      expect(await page.getByTestId('remote-add-windows').innerText()).toContain('ksp-agent.exe enrol');
      await page.getByTestId('remote-add-fingerprint').waitFor();
      await expect.poll(() => page.evaluate(() => window.location.hash)).toBe('');
      await shot(page, `remote-add-${lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it("shows the KADP client's recent operations on its detail page", async () => {
    const { page, errors } = await newPage(browser, { locale: 'en-US' });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/kadp/clients/clients-details/${clientId}`);
    const op = page.getByTestId('client-op-encrypt-success');
    await op.waitFor();
    expect(await op.innerText()).toContain('e2e-app-key');
    expect(await page.getByTestId('client-operations-count').innerText()).toContain('Operations: 1');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits a narrow screen (below 992 px) without horizontal scrolling of the page', async () => {
    const { page } = await newPage(browser, { locale: 'en-US', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/product`);
    await page.getByTestId('product-tile-sms').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
