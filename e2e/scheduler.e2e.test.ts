import { beforeAll, describe, expect, it } from 'vitest';
import { api, Usage, type SchedulerRun, type SchedulerTask } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { openMenu } from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

interface Page<T> {
  data: T[];
  total: number;
}

describe('settings › scheduler, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'scheduler' });
  let token: string;
  const keyIds: string[] = [];

  beforeAll(async () => {
    token = await loginByApi(ksp.url);
    for (const name of ['weekly-a', 'weekly-b', 'other-c']) {
      const made = await apiCall<{ id: string }>(
        ksp.url,
        api.key.create,
        { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
        token,
      );
      expect(made.code, made.msg).toBe(0);
      keyIds.push(made.data.id);
    }
    // Each run backs its keys up first (issue 13), under the default system backup key.
    const backupKey = await apiCall(
      ksp.url,
      api.backupKey.create,
      { name: 'rotation backups', scope: 'system', is_default: true },
      token,
    );
    expect(backupKey.code, backupKey.msg).toBe(0);
  });

  const versionOf = async (id: string) =>
    (await apiCall<{ version: number }>(ksp.url, api.key.detail, undefined, token, { id })).data.version;

  it('creates a weekly rotation task with the interval builder, runs it now and shows the result', async () => {
    const before = await apiCall<{ ciphertext: string }>(
      ksp.url,
      api.crypto.encrypt,
      { key_id: keyIds[0]!, plaintext: Buffer.from('before rotation').toString('base64') },
      token,
    );
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, 'Settings', 'Scheduler');
    await page.waitForURL(/\/console\/setting\/scheduler$/);
    await page.getByTestId('scheduler-add').click();
    await page.getByTestId('scheduler-name').fill('weekly rotation');
    // The builder starts on "week", Monday, 03:00: the cron shows as it is built.
    await expect.poll(() => page.getByTestId('scheduler-compiled-cron').innerText()).toContain('0 3 * * 1');
    await page.getByTestId('scheduler-weekdays').getByText('Friday').click();
    await page.getByTestId('scheduler-hour').fill('4');
    await page.getByTestId('scheduler-minute').fill('30');
    await expect
      .poll(() => page.getByTestId('scheduler-compiled-cron').innerText())
      .toContain('30 4 * * 1,5');
    await page.getByTestId('scheduler-name-pattern').fill('weekly-*');
    await shot(page, 'scheduler-form-en');
    await page.getByTestId('scheduler-form-ok').click();
    await expect
      .poll(() => page.getByTestId('scheduler-cron-weekly rotation').innerText())
      .toBe('30 4 * * 1,5');
    expect(await page.getByTestId('scheduler-next-weekly rotation').innerText()).not.toBe('-');

    await page.getByTestId('scheduler-run-weekly rotation').click();
    // The history opens and follows the run to its end.
    await page.getByTestId('scheduler-history').waitFor();
    await expect
      .poll(
        () =>
          page.getByTestId('scheduler-history').locator('[data-state]').first().getAttribute('data-state'),
        {
          timeout: 30_000,
        },
      )
      .toBe('success');
    expect(await page.getByTestId('scheduler-history').innerText()).toContain('Run now');
    await page.getByTestId('scheduler-history').locator('tbody tr.ant-table-row').first().click();
    await expect.poll(() => page.getByTestId('scheduler-run-keys').innerText()).toContain('weekly-a');
    const keysText = await page.getByTestId('scheduler-run-keys').innerText();
    expect(keysText).toContain('weekly-b');
    expect(keysText).not.toContain('other-c');
    expect(keysText).toContain('Rotated');
    await shot(page, 'scheduler-history-en');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.getByTestId('scheduler-result-weekly rotation').innerText())
      .toBe('Succeeded');

    // The keys behind the page: new versions, and the old ciphertext still decrypts.
    expect(await versionOf(keyIds[0]!)).toBe(2);
    expect(await versionOf(keyIds[1]!)).toBe(2);
    expect(await versionOf(keyIds[2]!)).toBe(1);
    const old = await apiCall<{ plaintext: string; version: number }>(
      ksp.url,
      api.crypto.decrypt,
      { ciphertext: before.data.ciphertext },
      token,
    );
    expect(old.data).toMatchObject({
      plaintext: Buffer.from('before rotation').toString('base64'),
      version: 1,
    });
    const tasks = await apiCall<Page<SchedulerTask>>(ksp.url, api.scheduler.list, undefined, token, {
      page: 1,
      page_size: 20,
    });
    const task = tasks.data.data[0]!;
    expect(task).toMatchObject({ cron: '30 4 * * 1,5', last_result: 'success', enabled: true });
    const runs = await apiCall<Page<SchedulerRun>>(ksp.url, api.scheduler.history, undefined, token, {
      id: task.id,
      page: 1,
      page_size: 20,
    });
    expect(runs.data.data[0]).toMatchObject({ trigger: 'manual', matched: 2, rotated: 2, state: 'success' });

    // Disable from the page: no next run.
    await page.getByTestId('scheduler-enabled-weekly rotation').click();
    await expect.poll(() => page.getByTestId('scheduler-next-weekly rotation').innerText()).toBe('-');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('speaks Chinese: the builder, the run and its result', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN' });
    await signIn(page, ksp.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/setting/scheduler`);
    await page.getByTestId('scheduler-add').click();
    await page.getByTestId('scheduler-name').fill('每周轮换');
    expect(await page.getByTestId('scheduler-weekdays').innerText()).toContain('星期五');
    await page.getByTestId('scheduler-weekdays').getByText('星期一').click();
    await expect.poll(() => page.getByTestId('scheduler-compiled-cron').innerText()).toContain('请选择星期');
    await page.getByTestId('scheduler-weekdays').getByText('星期三').click();
    await expect.poll(() => page.getByTestId('scheduler-compiled-cron').innerText()).toContain('0 3 * * 3');
    await page.getByTestId('scheduler-form-ok').click();
    await expect.poll(() => page.getByTestId('scheduler-cron-每周轮换').innerText()).toBe('0 3 * * 3');
    await page.getByTestId('scheduler-run-每周轮换').click();
    await page.getByTestId('scheduler-history').waitFor();
    await expect
      .poll(() => page.getByTestId('scheduler-history').locator('[data-state]').first().innerText(), {
        timeout: 30_000,
      })
      .toBe('成功');
    expect(await page.getByTestId('scheduler-history').innerText()).toContain('立即运行');
    await shot(page, 'scheduler-history-zh');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('scheduler-result-每周轮换').innerText()).toBe('成功');
    // Every key of the domain ("none means all"): the two rotated before now at 3, the other at 2.
    expect(await versionOf(keyIds[0]!)).toBe(3);
    expect(await versionOf(keyIds[2]!)).toBe(2);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
