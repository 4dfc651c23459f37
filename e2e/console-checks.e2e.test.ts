import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { signInToConsole, signInUi } from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { ADMIN, createUserByApi, idByName, loginByApi } from './support/setup.js';
import { startBridge, type RunningBridge } from './support/ukey-bridge.js';
import { createTestToken, softhsmAvailable } from '../tools/ukey-bridge/src/softhsm-token.js';
import { consoleRun } from './support/run.js';

/**
 * Console checks of issue 31 (the Chromium walkthrough), in English and Chinese, on one server:
 * the activation's UKEY step (it activates this server), one message per empty field, the
 * certificate forms' messages, the Caps Lock hint and the first click, the spec's SMS routes,
 * and the small texts (first-run audit source, plurals, the lockout time).
 */

if (!softhsmAvailable()) {
  if (process.env.CI === 'true') throw new Error('SoftHSM2 and OpenSC are required in CI');
  console.warn('\n!!! SoftHSM2 and OpenSC not installed: the activation UKEY test cannot run !!!\n');
}

type Lang = 'en' | 'zh';
const LOCALE: Record<Lang, string> = { en: 'en-US', zh: 'zh-CN' };

/** The messages antd shows under the form item that holds `control`. */
function fieldErrors(page: Page, control: Locator): Locator {
  return page.locator('.ant-form-item', { has: control }).locator('.ant-form-item-explain-error');
}

async function errorsOf(page: Page, control: Locator): Promise<string[]> {
  const errors = fieldErrors(page, control);
  await errors.first().waitFor();
  return errors.allInnerTexts();
}

describe('console checks (issue 31), en and zh', () => {
  const { ksp, browser } = consoleRun({ name: 'console-checks', initialize: false });
  let bridge: RunningBridge;
  let token: string;
  let ukeySerial = '';

  beforeAll(async () => {
    // Initialized by the API; activation is the first test's.
    for (let i = 0; i < 3; i++) expect((await apiCall(ksp.url, api.system.initComponent, {})).code).toBe(0);
    expect((await apiCall(ksp.url, api.system.initFinish, {})).code).toBe(0);
    const ukey = createTestToken('first-admin');
    bridge = await startBridge(ukey.conf, ksp.url);
  });
  afterAll(async () => {
    await bridge?.stop();
  });
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    const pages = browser.contexts().flatMap((c) => c.pages());
    for (const [i, open] of pages.entries()) await shot(open, `issue31-failed-${i}`).catch(() => undefined);
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
  });

  async function openAs(lang: Lang, options: { timezoneId?: string } = {}) {
    const opened = await newPage(browser, { locale: LOCALE[lang], ...options });
    await opened.context.addCookies([{ name: 'language', value: lang, url: ksp.url }]);
    return opened;
  }

  /** The activation's UKEY step, read through the bridge; answers the serial shown. */
  async function readUkey(page: Page): Promise<string> {
    await page.goto(`${ksp.url}/user-active`);
    await page.getByTestId('activate-ukey-step').waitFor();
    await page.getByTestId('activate-ukey-bridge').fill(bridge.url);
    await page.getByTestId('activate-ukey-read').click();
    const ready = page.getByTestId('activate-ukey-ready');
    await ready.waitFor();
    return ready.innerText();
  }

  it('activation: "Verify UKEY" reads the UKEY through the bridge (zh), one message per empty field, and binds it to the first administrator (en)', async () => {
    // Chinese: the step's texts, the skip rule (MFA is off on a new installation), the UKEY read.
    const zh = await openAs('zh');
    const zhReady = await readUkey(zh.page);
    expect(zhReady).toMatch(/^UKEY \S+ 将绑定到管理员$/);
    expect(await zh.page.getByTestId('activate-ukey-rule').innerText()).toContain('多因素认证（MFA）未开启');
    expect(await zh.page.getByTestId('activate-skip-ukey').isVisible()).toBe(true);
    expect(await zh.page.locator('body').innerText()).not.toContain('请先跳过此步骤');
    await zh.page.getByTestId('activate-ukey-next').click();
    await zh.page.getByTestId('activate-submit').click();
    expect(await errorsOf(zh.page, zh.page.getByTestId('activate-username'))).toEqual(['请输入管理员用户名']);
    expect(await errorsOf(zh.page, zh.page.getByTestId('activate-email'))).toHaveLength(1);
    await shot(zh.page, 'issue31-activate-zh');
    await zh.context.close();

    // English: read, next, the empty form says one thing per field, then activate.
    const { page, context, errors } = await openAs('en');
    const ready = await readUkey(page);
    ukeySerial = /^UKEY (\S+) will be bound to the administrator$/.exec(ready)?.[1] ?? '';
    expect(ukeySerial).not.toBe('');
    expect(await page.getByTestId('activate-ukey-rule').innerText()).toContain('MFA is off');
    expect(await page.locator('body').innerText()).not.toContain('Skip this step for now');
    await shot(page, 'issue31-activate-ukey-en');
    await page.getByTestId('activate-ukey-next').click();
    await page.getByTestId('activate-submit').click();
    expect(await errorsOf(page, page.getByTestId('activate-username'))).toEqual([
      'Please enter Administrator username',
    ]);
    expect(await errorsOf(page, page.getByTestId('activate-email'))).toEqual(['Please enter Email']);
    expect(await errorsOf(page, page.getByTestId('activate-password'))).toEqual([
      'Please enter your password',
    ]);
    await page.getByTestId('activate-username').fill(ADMIN.username);
    await page.getByTestId('activate-password').fill(ADMIN.password);
    await page.getByTestId('activate-confirm').fill(ADMIN.password);
    await page.getByTestId('activate-email').fill(ADMIN.email);
    await page.getByTestId('activate-submit').click();
    await page.getByTestId('side-menu').waitFor();
    expect(errors).toEqual([]);
    await context.close();

    token = await loginByApi(ksp.url);
    const me = await apiCall<{ userinfo: { ukey_bound: boolean; ukey_serial: string | null } }>(
      ksp.url,
      api.user.info,
      undefined,
      token,
    );
    expect(me.data.userinfo).toMatchObject({ ukey_bound: true, ukey_serial: ukeySerial });
  });

  it('records the first run with source "web", not the scheduler', async () => {
    const records = await apiCall<{ data: { action: string; source: string }[] }>(
      ksp.url,
      api.log.list,
      undefined,
      token,
      { page: 1, page_size: 50, action: 'system.' },
    );
    const firstRun = records.data.data.filter((r) => r.action.startsWith('system.'));
    expect(firstRun.map((r) => r.action).sort()).toEqual([
      'system.activate',
      'system.init.component',
      'system.init.component',
      'system.init.component',
      'system.init.finish',
    ]);
    expect(firstRun.filter((r) => r.source !== 'web')).toEqual([]);
  });

  it.each(['en', 'zh'] as const)(
    "serves the spec's SMS routes, and the bare paths redirect to them (%s)",
    async (lang) => {
      const { page, context, errors } = await openAs(lang);
      await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
      for (const route of ['cred', 'server']) {
        await page.goto(`${ksp.url}/credential/${route}/index`);
        await page.getByTestId('side-menu').waitFor();
        expect(new URL(page.url()).pathname).toBe(`/credential/${route}/index`);
        expect(await page.getByTestId('not-found').count()).toBe(0);
        await page.goto(`${ksp.url}/credential/${route}`);
        await page.waitForURL(`**/credential/${route}/index`);
      }
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it.each([
    ['en', 'Please enter Username', 'Invalid name data format', 'Invalid email format'],
    ['zh', '请输入用户名', '名称数据格式不正确', '邮箱格式不正确'],
  ] as const)(
    'the user form says one thing per empty field; certificate forms say the spec messages (%s)',
    async (lang, required, badName, badEmail) => {
      const { page, context } = await openAs(lang);
      await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
      await page.goto(`${ksp.url}/console/access/user`);
      await page.getByTestId('user-add').click();
      await page.getByTestId('user-create-ok').click();
      expect(await errorsOf(page, page.getByTestId('user-username'))).toEqual([required]);
      expect(await errorsOf(page, page.getByTestId('user-email'))).toHaveLength(1);
      await shot(page, `issue31-user-form-${lang}`);

      await page.goto(`${ksp.url}/console/cert/local`);
      await page.getByTestId('tab-cas').click();
      await page.getByTestId('ca-list').waitFor();
      await page.getByTestId('ca-create').click();
      await page.getByTestId('ca-name').fill('bad/name');
      await page.getByTestId('ca-emails').fill('ops@example.com, not-an-address');
      await page.getByTestId('ca-form-ok').click();
      expect(await errorsOf(page, page.getByTestId('ca-name'))).toEqual([badName]);
      expect(await errorsOf(page, page.getByTestId('ca-emails'))).toEqual([badEmail]);
      await shot(page, `issue31-ca-form-${lang}`);
      await context.close();
    },
  );

  it.each(['en', 'zh'] as const)(
    'with the Caps Lock hint shown, the first click on "Log in" signs in (%s)',
    async (lang) => {
      const { page, context } = await openAs(lang);
      await page.goto(`${ksp.url}/login`);
      await page.getByTestId('login-username').fill(ADMIN.username);
      const password = page.getByTestId('login-password');
      await password.fill(ADMIN.password);
      // A key typed with Caps Lock on (the browser's own modifier state).
      await password.evaluate((input) => {
        for (const type of ['keydown', 'keyup']) {
          input.dispatchEvent(new KeyboardEvent(type, { key: 'a', bubbles: true, modifierCapsLock: true }));
        }
      });
      await page.getByTestId('caps-lock').waitFor();
      expect(await page.getByTestId('caps-lock').innerText()).toBe(
        lang === 'en' ? 'Caps Lock is on' : '大写锁定已打开',
      );
      await shot(page, `issue31-caps-lock-${lang}`);
      // One real click (mouse down, blur, mouse up): it must submit.
      await page.getByTestId('login-submit').click();
      await page.getByTestId('side-menu').waitFor({ timeout: 15_000 });
      await context.close();
    },
  );

  it('the dashboard counts one valid certificate in the singular (en) and as 张 (zh)', async () => {
    // One CA self-signed, and one certificate it issues: one valid certificate.
    const ca = await apiCall<{ id: string }>(
      ksp.url,
      api.cert.caCreate,
      { name: 'Issue31 Root', cn: 'Issue31 Root' },
      token,
    );
    expect(ca.code).toBe(0);
    expect((await apiCall(ksp.url, api.cert.caSelfSign, { id: ca.data.id }, token)).code).toBe(0);
    const issued = await apiCall(
      ksp.url,
      api.cert.issue,
      { name: 'issue31-web', ca_id: ca.data.id, cn: 'web.example.test', key_algorithm: 'EC-P256' },
      token,
    );
    expect(issued.code).toBe(0);
    const summary = await apiCall<{ certificates: { valid: number } }>(
      ksp.url,
      api.dashboard.summary,
      undefined,
      token,
    );
    expect(summary.data.certificates.valid).toBe(1);
    for (const [lang, text] of [
      ['en', '1 valid certificate'],
      ['zh', '有效证书 1 张'],
    ] as const) {
      const { page, context } = await openAs(lang);
      await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
      await page.goto(`${ksp.url}/console/dashboard`);
      await page.getByText(text, { exact: true }).waitFor();
      expect(await page.locator('body').innerText()).not.toContain('1 valid certificates');
      await context.close();
    }
  });

  it('the lockout message names the end of the lock in local time (en, zh)', async () => {
    const operator = await idByName(ksp.url, token, api.role.list, (name) => name !== 'Administrator');
    const user = { username: 'locky', password: 'Locky-Pass-1', email: 'locky@example.test' };
    await createUserByApi(ksp.url, token, { ...user, role_ids: [operator] });
    let until = '';
    for (let i = 0; i < 100 && !until; i++) {
      const wrong = await apiCall(ksp.url, api.user.login, {
        username: Buffer.from(user.username).toString('base64'),
        password: Buffer.from('wrong').toString('base64'),
      });
      until = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/.exec(wrong.msg)?.[1] ?? '';
    }
    expect(until).not.toBe('');
    // Shanghai is UTC+8 all year.
    const local = new Date(Date.parse(until) + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    for (const [lang, words] of [
      ['en', `try again after ${local}`],
      ['zh', `请于 ${local} 之后再试`],
    ] as const) {
      const { page, context } = await openAs(lang, { timezoneId: 'Asia/Shanghai' });
      await signInUi(page, ksp.url, user.username, user.password);
      const error = page.getByTestId('login-error');
      await error.waitFor();
      const text = await error.innerText();
      expect(text).toContain(words);
      expect(text).not.toContain(until);
      await shot(page, `issue31-lockout-${lang}`);
      await context.close();
    }
  });
});
