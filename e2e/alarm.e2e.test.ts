import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { chooseOption, signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

/** Failed sign-ins under a name nobody has: `user.login` records with result failure. */
async function failSignIns(base: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const refused = await apiCall(base, api.user.login, {
      username: Buffer.from('intruder').toString('base64'),
      password: createHash('sha256').update('Not-A-Password-1').digest('base64'),
    });
    expect(refused.code).not.toBe(0);
  }
}

const ruleRow = (page: Page, name: string) => page.getByTestId(`alarm-rule-row-${name}`);
const alarmRow = (page: Page, name: string) =>
  page.getByTestId('alarm-list').locator('tr.ant-table-row', { hasText: name });

/** Adds a rule through the form: failed sign-ins, `threshold` of them within a minute. */
async function addRule(page: Page, name: string, labels: { failure: string; minutes: string }) {
  await page.getByTestId('alarm-rule-add').click();
  const form = page.getByTestId('alarm-rule-form');
  await form.waitFor();
  await page.getByTestId('alarm-rule-name').fill(name);
  await page.getByTestId('alarm-rule-action').fill('user.login');
  await chooseOption(page, 'alarm-rule-result', labels.failure);
  await page.getByTestId('alarm-rule-threshold').fill('2');
  await page.getByTestId('alarm-rule-interval').fill('1');
  expect(await page.getByTestId('alarm-rule-interval-unit').innerText()).toContain(labels.minutes);
  await page.getByTestId('alarm-rule-save').click();
  await form.waitFor({ state: 'detached' });
  await ruleRow(page, name).waitFor();
}

/**
 * The alarm the evaluation job raises (every 10 s on the server's own timer): reloads the
 * alarms tab until the rule's open alarm is listed.
 */
async function waitForAlarm(page: Page, name: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.getByTestId('alarm-list').waitFor();
        return alarmRow(page, name).count();
      },
      { timeout: 45_000, interval: 2_000 },
    )
    .toBeGreaterThan(0);
}

describe('alarms, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'alarm' });

  it('adds a rule, raises its alarm from failed sign-ins and acknowledges it, in English', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/log`);
    await page.getByTestId('log-tab-rules').click();
    await page.waitForURL(/[?&]tab=rules/);
    await page.getByTestId('alarm-rule-list').waitFor();

    // A bad action is refused in the form, with the rule spelt out.
    await page.getByTestId('alarm-rule-add').click();
    await page.getByTestId('alarm-rule-name').fill('bad-action');
    await page.getByTestId('alarm-rule-action').fill('user login');
    await page.getByTestId('alarm-rule-interval').fill('3');
    await chooseOption(page, 'alarm-rule-interval-unit', 'seconds');
    await page.getByTestId('alarm-rule-save').click();
    const form = page.getByTestId('alarm-rule-form');
    await expect.poll(() => form.innerText()).toContain('Use an action such as user.login');
    expect(await form.innerText()).toContain('The interval must be between 10 seconds and 7 days');
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });

    await addRule(page, 'sign-in-attack', { failure: 'Failure', minutes: 'minutes' });
    const row = await ruleRow(page, 'sign-in-attack').innerText();
    expect(row).toContain('user.login');
    expect(row).toContain('2 / 1 min');
    expect(row).toContain('All domains');

    await failSignIns(ksp.url, 2);
    await page.getByTestId('log-tab-alarms').click();
    await page.waitForURL(/[?&]tab=alarms/);
    await waitForAlarm(page, 'sign-in-attack');
    const alarm = alarmRow(page, 'sign-in-attack');
    expect(await alarm.getByTestId('alarm-state').innerText()).toBe('Open');
    expect(await alarm.getByTestId('alarm-counted').innerText()).toBe('2 of 2 in 1 min');
    await shot(page, 'alarm-open-en');

    // The dashboard shows the open alarm; its link leads back to the alarms tab.
    await page.goto(`${ksp.url}/console/dashboard`);
    const widget = page.getByTestId('alarm-widget');
    await expect.poll(() => widget.innerText()).toContain('sign-in-attack');
    await shot(page, 'alarm-dashboard-en');
    await widget.getByText('sign-in-attack', { exact: true }).click();
    await page.waitForURL(/[?&]tab=alarms/);
    await waitForAlarm(page, 'sign-in-attack');

    await alarm.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => alarm.getByTestId('alarm-state').innerText()).toBe('Acknowledged');
    expect(await alarm.innerText()).toContain('admin');
    expect(await alarm.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);

    // The raise and the acknowledgement are server records.
    await page.getByTestId('log-tab-server').click();
    await page.getByTestId('log-filter-action').fill('alarm.');
    await page.getByTestId('log-search').click();
    const records = page.getByTestId('log-list');
    await expect.poll(() => records.innerText()).toContain('Alarm acknowledged');
    expect(await records.innerText()).toContain('Alarm raised');
    await shot(page, 'alarm-records-en');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('does the same in Chinese, at a phone width', async () => {
    const { page, errors } = await newPage(browser, { locale: 'zh-CN', width: 900 });
    await signIn(page, ksp.url);
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/log?tab=rules`);
    await page.getByTestId('alarm-rule-list').waitFor();
    expect(await page.getByTestId('log-tab-rules').innerText()).toBe('告警规则');
    await addRule(page, '登录攻击', { failure: '失败', minutes: '分钟' });
    expect(await ruleRow(page, '登录攻击').innerText()).toContain('所有域');

    await failSignIns(ksp.url, 2);
    await page.getByTestId('log-tab-alarms').click();
    await waitForAlarm(page, '登录攻击');
    const alarm = alarmRow(page, '登录攻击');
    expect(await alarm.getByTestId('alarm-state').innerText()).toBe('未确认');
    // antd spaces two-character Chinese button labels ("确 认").
    const ack = alarm.locator('[data-testid^="alarm-ack-"]');
    expect((await ack.innerText()).replace(/\s/g, '')).toBe('确认');
    await ack.click();
    await expect.poll(() => alarm.getByTestId('alarm-state').innerText()).toBe('已确认');
    await shot(page, 'alarm-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
