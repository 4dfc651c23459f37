import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { api, Usage, type BackupRow } from '@ksp/contracts';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { chooseOption, openDropdown, signIn } from './support/ui.js';

/** Clicks something that saves a file and returns the file's bytes. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return readFileSync(await download.path());
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('settings › backup keys and backups, in the browser', () => {
  let a: RunningServer;
  let b: RunningServer;
  let browser: Browser;
  let tokenA: string;
  let ciphertext: string;
  let keyFile: Buffer;
  let archive: Buffer;
  let backupId: string;

  beforeAll(async () => {
    a = await startKsp();
    await initializeByApi(a.url);
    tokenA = await loginByApi(a.url);
    const key = await apiCall<{ id: string }>(
      a.url,
      api.key.create,
      { name: 'payroll', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
      tokenA,
    );
    const enc = await apiCall<{ ciphertext: string }>(
      a.url,
      api.crypto.encrypt,
      { key_id: key.data.id, plaintext: b64('salary table') },
      tokenA,
    );
    ciphertext = enc.data.ciphertext;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await a?.stop();
    await b?.stop();
  });

  it('creates a backup key, backs up, downloads both, and restores them into a second server', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, a.url);
    await page.goto(`${a.url}/console/setting/backup-key`);
    await page.getByTestId('backup-key-add').click();
    await page.getByTestId('backup-key-name').fill('nightly');
    await page.getByTestId('backup-key-create-ok').click();
    await page.getByTestId('backup-key-default-nightly').waitFor();
    await page.getByTestId('backup-key-download-nightly').click();
    await page.getByTestId('backup-key-password').fill('Key-File-Pass-1');
    await page.getByTestId('backup-key-password-again').fill('Key-File-Pass-1');
    await page.getByTestId('backup-key-hint').fill('the vault one');
    keyFile = await downloaded(page, () => page.getByTestId('backup-key-download-ok').click());
    expect(JSON.parse(keyFile.toString('utf8'))).toMatchObject({
      format: 'ksp-backup-key',
      hint: 'the vault one',
    });
    await shot(page, 'backup-keys-en');

    await page.goto(`${a.url}/console/setting/backup`);
    await page.getByTestId('backup-add').click();
    await page.getByTestId('backup-description').fill('before the move');
    await page.getByTestId('backup-create-ok').click();
    const list = await apiCall<{ data: BackupRow[] }>(a.url, api.backup.list, undefined, tokenA);
    backupId = list.data.data[0]!.id;
    await expect
      .poll(() => page.getByTestId(`backup-status-${backupId}`).innerText(), { timeout: 30_000 })
      .toBe('Completed');
    const row = (await apiCall<BackupRow>(a.url, api.backup.detail, undefined, tokenA, { id: backupId }))
      .data;
    expect(await page.getByTestId(`backup-sha256-${backupId}`).innerText()).toContain(
      row.sha256.slice(0, 12),
    );
    archive = await downloaded(page, () => page.getByTestId(`backup-download-${backupId}`).click());
    expect(createHash('sha256').update(archive).digest('hex')).toBe(row.sha256);
    await shot(page, 'backups-en');
    await page.context().close();

    // A second, fresh server: upload the key file and the archive, restore, sign in again.
    b = await startKsp();
    await initializeByApi(b.url);
    const second = await newPage(browser);
    const pb = second.page;
    await signIn(pb, b.url);
    await pb.goto(`${b.url}/console/setting/backup-key`);
    await pb.getByTestId('backup-key-upload').click();
    await pb
      .locator('.ant-modal input[type=file]')
      .setInputFiles({ name: 'key.json', mimeType: 'application/json', buffer: keyFile });
    await pb.getByTestId('backup-key-upload-password').fill('wrong-password');
    await pb.getByTestId('backup-key-upload-ok').click();
    await pb.getByText('does not open this backup key file').waitFor();
    await pb.getByTestId('backup-key-upload-password').fill('Key-File-Pass-1');
    await expect.poll(() => pb.getByTestId('backup-key-upload-ok').isEnabled(), { timeout: 5000 }).toBe(true);
    await pb.getByTestId('backup-key-upload-ok').click();
    await pb.getByTestId('backup-key-row-nightly').waitFor();

    await pb.goto(`${b.url}/console/setting/backup`);
    await pb
      .locator('input[type=file]')
      .setInputFiles({ name: 'backup.kspb', mimeType: 'application/octet-stream', buffer: archive });
    const tokenB = await loginByApi(b.url);
    let uploadedId = '';
    await expect
      .poll(async () => {
        const l = await apiCall<{ data: BackupRow[] }>(b.url, api.backup.list, undefined, tokenB);
        uploadedId = l.data.data[0]?.id ?? '';
        return uploadedId;
      })
      .not.toBe('');
    await pb.getByTestId(`backup-restore-${uploadedId}`).click();
    await pb.getByTestId('backup-restore-ok').click();
    await pb.waitForURL(/\/login/, { timeout: 30_000 });
    const restoredToken = await loginByApi(b.url);
    const dec = await apiCall<{ plaintext: string }>(
      b.url,
      api.crypto.decrypt,
      { ciphertext },
      restoredToken,
    );
    expect(Buffer.from(dec.data.plaintext, 'base64').toString()).toBe('salary table');
    expect(second.errors).toEqual([]);
    expect(errors).toEqual([]);
    await pb.context().close();
  });

  it("shows the description of a key rotation's backup in the console's language (zh, then en)", async () => {
    // A rotation task run now: the scheduler takes its backup (under the default system key
    // the first test made) before it rotates.
    const task = await apiCall<{ id: string }>(
      a.url,
      api.scheduler.create,
      { name: 'rotate-payroll', cron: '0 3 * * *', query: { name_pattern: 'payroll' } },
      tokenA,
    );
    expect(task.code, task.msg).toBe(0);
    expect((await apiCall(a.url, api.scheduler.runNow, { id: task.data.id }, tokenA)).code).toBe(0);
    let rotation: BackupRow | undefined;
    await expect
      .poll(
        async () => {
          const l = await apiCall<{ data: BackupRow[] }>(a.url, api.backup.list, undefined, tokenA, {
            page: 1,
            page_size: 50,
          });
          rotation = l.data.data.find((r) => r.scope === 'key_rotation' && r.status === 'completed');
          return rotation !== undefined;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    const run = rotation!.description_message?.params.run;
    expect(rotation!.description_message?.key).toBe('backup.rotationDescription');
    expect(rotation!.description_message?.params.task).toBe('rotate-payroll');
    expect(run).toMatch(/^[0-9a-f-]{36}$/);

    const { page, errors } = await newPage(browser, { locale: 'zh-CN' });
    await signIn(page, a.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: a.url }]);
    await page.goto(`${a.url}/console/setting/backup`);
    const cell = page.getByTestId(`backup-row-${rotation!.id}`).getByTestId('backup-description-cell');
    await expect.poll(() => cell.innerText()).toBe(`密钥轮换：任务 rotate-payroll，运行 ${run}`);
    await shot(page, 'backup-rotation-zh');
    // Switched to English in place (no new request): the description follows.
    await page.getByTestId('lang-switch').click();
    await page.getByTestId('lang-en').click();
    await expect.poll(() => cell.innerText()).toBe(`Key rotation: task rotate-payroll, run ${run}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  for (const lang of [
    { code: 'en', locale: 'en-US', partial: 'Partial domain' },
    { code: 'zh', locale: 'zh-CN', partial: '部分域' },
  ] as const) {
    it(`picks the keys of a partial backup by name, not by id (${lang.code})`, async () => {
      // A partial backup is a domain one: it is written under the domain's default key.
      if (lang.code === 'en') {
        const made = await apiCall(
          a.url,
          api.backupKey.create,
          { name: 'root domain key', scope: 'domain', is_default: true },
          tokenA,
        );
        expect(made.code, made.msg).toBe(0);
      }
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, a.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: a.url }]);
      await page.goto(`${a.url}/console/setting/backup`);
      await page.getByTestId('backup-add').click();
      await chooseOption(page, 'backup-scope', lang.partial);
      // Searched on the server by name; the chosen key shows by name.
      await page.getByTestId('backup-key-ids').click();
      await page.keyboard.type('payr');
      // A multiple select stays open after a choice: click the option, then close it.
      await openDropdown(page).locator('.ant-select-item-option', { hasText: 'payroll' }).first().click();
      await page.keyboard.press('Escape');
      expect(await page.getByTestId('backup-key-ids').innerText()).toContain('payroll');
      await shot(page, `backup-partial-picker-${lang.code}`);
      await page.getByTestId('backup-create-ok').click();
      // The backup holds that one key.
      await expect
        .poll(
          async () => {
            const l = await apiCall<{ data: BackupRow[] }>(a.url, api.backup.list, undefined, tokenA, {
              page: 1,
              page_size: 50,
            });
            const partial = l.data.data.filter((r) => r.scope === 'partial' && r.status === 'completed');
            return partial.length ? partial[0]!.counts.kms_key : -1;
          },
          { timeout: 60_000 },
        )
        .toBe(1);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('speaks Chinese on both pages', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN' });
    await signIn(page, a.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: a.url }]);
    await page.goto(`${a.url}/console/setting/backup`);
    await expect.poll(() => page.getByTestId(`backup-status-${backupId}`).innerText()).toBe('已完成');
    expect(await page.getByTestId('backup-list').innerText()).toContain('恢复状态');
    await page.goto(`${a.url}/console/setting/backup-key`);
    await expect.poll(() => page.getByTestId('backup-key-default-nightly').innerText()).toBe('默认');
    expect(await page.getByTestId('backup-key-upload').innerText()).toMatch(/上\s*传/);
    await shot(page, 'backup-keys-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
