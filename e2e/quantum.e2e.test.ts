import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, type QuantumState } from '@ksp/contracts';
import { launch, newPage, newPageIn, shot } from './support/browser.js';
import { pageOverflow } from './support/geometry.js';
import { openMenu } from './support/console-ui.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';

const MIB = 1024 * 1024;

/** The source the server holds now, by the API (not what the page shows). */
async function serverState(base: string): Promise<QuantumState> {
  const token = await loginByApi(base);
  const answer = await apiCall<QuantumState>(base, api.quantum.status, undefined, token);
  if (answer.code !== 0) throw new Error(answer.msg);
  return answer.data;
}

const statusText = (page: Page) => page.getByTestId('quantum-status').innerText();

async function openQuantum(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/console/setting/quantum`);
  await page.getByTestId('quantum-status').waitFor();
}

describe('settings › quantum, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let dir: string;
  let healthy: string;
  let stuck: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksp-qrng-'));
    // A healthy source (recorded random bytes) and a stuck one (one byte value over and over).
    healthy = join(dir, 'healthy.bin');
    stuck = join(dir, 'stuck.bin');
    writeFileSync(healthy, randomBytes(4 * MIB));
    writeFileSync(stuck, Buffer.alloc(4 * MIB, 0x41));
    ksp = await startKsp();
    await initializeByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('enables a healthy file source, refuses a stuck one, in English', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, 'Settings', 'Quantum');
    await page.waitForURL(/\/console\/setting\/quantum$/);
    await expect.poll(() => statusText(page)).toBe('Disabled');
    expect(await page.getByTestId('quantum-updated-at').innerText()).toMatch(/^Updated at \d\d:\d\d:\d\d$/);
    expect(await page.getByTestId('quantum-status-card').innerText()).toContain('never used raw');

    // The client-side rule first: a file source wants an absolute path.
    await chooseOption(page, 'quantum-source-type', 'File');
    await page.getByTestId('quantum-enabled').click();
    await page.getByTestId('quantum-endpoint').fill('healthy.bin');
    await page.getByText('A device or file path must be absolute (start with "/")').waitFor();

    await page.getByTestId('quantum-endpoint').fill(healthy);
    await page.getByTestId('quantum-save').click();
    await expect.poll(() => statusText(page)).toBe('Normal');
    expect(await page.getByTestId('quantum-current-source').innerText()).toBe(`File · ${healthy}`);

    await page.getByTestId('quantum-test').click();
    const result = page.getByTestId('quantum-test-result');
    await result.waitFor();
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await result.innerText()).toContain('The source passed the start-up tests');
    await expect.poll(() => statusText(page)).toBe('Normal');
    const consumed = Number(await page.getByTestId('quantum-bytes-consumed').getAttribute('data-value'));
    expect(consumed).toBeGreaterThan(0);
    expect(await page.getByTestId('quantum-bytes-consumed').innerText()).toMatch(/^\d+(\.\d)? (B|KB|MB)$/);
    await shot(page, 'quantum-normal-en');

    // The stuck file: the server runs the start-up tests and refuses it; the form keeps it.
    await page.getByTestId('quantum-endpoint').fill(stuck);
    await page.getByTestId('quantum-save').click();
    const refusal = page.getByTestId('quantum-save-error');
    await refusal.waitFor();
    const said = await refusal.innerText();
    expect(said).toContain('start-up tests');
    expect(said).toContain('Repetition Count Test failed');
    expect(await page.getByTestId('quantum-endpoint').inputValue()).toBe(stuck);
    await shot(page, 'quantum-refused-en');

    // Not normal with the stuck file: the server kept the healthy source, and says so.
    const held = await serverState(ksp.url);
    expect(held.endpoint).toBe(healthy);
    expect(held.status === 'normal' && held.endpoint === stuck).toBe(false);
    await page.reload();
    await page.getByTestId('quantum-status').waitFor();
    expect(await page.getByTestId('quantum-current-source').innerText()).toBe(`File · ${healthy}`);
    expect(await page.getByTestId('quantum-current-source').innerText()).not.toContain(stuck);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the status in Chinese', async () => {
    const { page, errors } = await newPageIn(browser, ksp.url, { lang: 'zh' });
    await signIn(page, ksp.url);
    await openQuantum(page, ksp.url);
    const state = await serverState(ksp.url);
    const zh = { normal: '正常', invalid: '无效', disabled: '已停用' }[state.status];
    await expect.poll(() => statusText(page)).toBe(zh);
    expect(await page.getByTestId('quantum-status-card').innerText()).toContain('熵源状态');
    expect(await page.getByTestId('quantum-status-card').innerText()).toContain('从不直接使用');
    await shot(page, 'quantum-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits the status card in an 800 px window', async () => {
    const { page, errors } = await newPage(browser, { width: 800, height: 900 });
    await signIn(page, ksp.url);
    await openQuantum(page, ksp.url);
    const card = page.getByTestId('quantum-status-card');
    await card.waitFor();
    expect(await pageOverflow(page)).toBeLessThanOrEqual(1);
    const box = await card.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 800).toBe(true);
    expect(await card.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    await shot(page, 'quantum-800');
    // The status reads itself again every 10 s while the page is open.
    const updatedAt = page.getByTestId('quantum-updated-at');
    const first = await updatedAt.innerText();
    await expect.poll(() => updatedAt.innerText(), { timeout: 15_000, interval: 500 }).not.toBe(first);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
