import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { chooseOption, openDropdown, signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';

const langs = [
  {
    code: 'en',
    locale: 'en-US',
    area: 'TDE',
    resourceSet: 'Resource set',
    standard: 'Standard',
    badPath: 'resources[0].directory: must start with /',
    saved: 'saved',
  },
  {
    code: 'zh',
    locale: 'zh-CN',
    area: '透明加密',
    resourceSet: '资源集',
    standard: '标准',
    badPath: 'resources[0].directory：必须以 / 开头',
    saved: '已保存',
  },
] as const;

/** TDE / RDM › policies: elements, a policy with rules, a client profile, an RDM policy, in the browser. */
describe('TDE and RDM policies, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'tde-policy' });
  let token = '';

  beforeAll(async () => {
    token = await loginByApi(ksp.url);
    // A process set the RDM policy trusts (made through the API: the pages make the others).
    const made = await apiCall(
      ksp.url,
      api.tdePolicy.elementCreate,
      { kind: 'process', name: 'backup-tools', processes: [{ directory: '/usr/bin', file: 'backup' }] },
      token,
    );
    expect(made.code).toBe(0);
  });

  for (const lang of langs) {
    it(`creates a resource set, a policy with rules and a client profile (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);

      // A resource set: a bad path is refused with the field and rule, then fixed and saved.
      await page.goto(`${ksp.url}/cte/policies/create-policies-elements?kind=resource`);
      await page.getByTestId('element-name').fill(`files-${lang.code}`);
      await page.getByTestId('entry-add-resources').click();
      await page.getByTestId('resource-directory-0').fill('data');
      await page.getByTestId('element-save').click();
      await page.getByText(lang.badPath).first().waitFor();
      await page.getByTestId('resource-directory-0').fill('/data');
      await page.getByTestId('resource-subfolders-0').check();
      // The save button is locked for 2 s after a click: wait until it is enabled again.
      await page.locator('[data-testid="element-save"]:enabled').waitFor();
      await page.getByTestId('element-save').click();
      await expect.poll(() => page.url()).toContain('/cte/policies/policy-elements-details/');
      await expect.poll(() => page.getByTestId('element-title').innerText()).toContain(`files-${lang.code}`);
      expect(await page.getByTestId('element-title').innerText()).toContain(lang.resourceSet);
      await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe(lang.area);

      // A policy, through the wizard: a rule on that set, moved below a second one, and a
      // clear_key key rule; Next refuses to leave the general step without a name.
      await page.goto(`${ksp.url}/cte/policies/create-policies`);
      await page.getByTestId('policy-next').click();
      await page.locator('.ant-form-item-explain-error').first().waitFor();
      await page.getByTestId('policy-name').fill(`policy-${lang.code}`);
      await page.getByTestId('policy-next').click();
      await page.getByTestId('rule-add').click();
      await chooseOption(page, 'rule-resource-set', `files-${lang.code}`);
      await page.getByTestId('rule-ok').click();
      await page.getByTestId('rule-row-0').waitFor();
      await page.getByTestId('rule-add').click();
      await page.getByTestId('rule-ok').click();
      await page.getByTestId('rule-row-1').waitFor();
      await page.getByTestId('rule-down-0').click();
      await expect.poll(() => page.getByTestId('rule-row-1').innerText()).toContain(`files-${lang.code}`);
      await page.getByTestId('policy-next').click();
      await page.getByTestId('key-rule-add').click();
      await page.getByTestId('key-rule-ok').click();
      await page.getByTestId('key-rule-row-0').waitFor();
      await page.getByTestId('policy-next').click();
      // The review lists the rules in their order.
      await expect
        .poll(() => page.getByTestId('review-rule-row-1').innerText())
        .toContain(`files-${lang.code}`);
      await shot(page, `tde-policy-review-${lang.code}`);
      await page.getByTestId('policy-save').click();
      await expect.poll(() => page.url()).toContain('/cte/policies/policies-details/');
      await expect.poll(() => page.getByTestId('policy-revision').innerText()).toContain('1');
      // The saved policy opens on its first step, its type locked; any step can be opened.
      expect(await page.getByTestId('policy-name').inputValue()).toBe(`policy-${lang.code}`);
      await shot(page, `tde-policy-editor-${lang.code}`);
      await page.getByTestId('policy-description').fill('edited');
      await page.getByTestId('policy-step-review').click();
      // The save button is locked for 2 s after a click: wait until it is enabled again.
      await page.locator('[data-testid="policy-save"]:enabled').waitFor();
      await page.getByTestId('policy-save').click();
      await expect.poll(() => page.getByTestId('policy-revision').innerText()).toContain('2');

      await page.goto(`${ksp.url}/cte/policies/policies`);
      const row = page.getByTestId(`policy-row-policy-${lang.code}`);
      await row.waitFor();
      expect(await row.innerText()).toContain(lang.standard);
      // The set now names the policy as its user.
      await page.goto(`${ksp.url}/cte/policies/policy-elements?kind=resource`);
      await expect
        .poll(() => page.getByTestId(`element-row-files-${lang.code}`).innerText())
        .toContain(`policy-${lang.code}`);

      // A client profile, created by name, then edited.
      await page.goto(`${ksp.url}/cte/setting/profiles`);
      await page.getByTestId('profile-row-DefaultClientProfile').waitFor();
      await page.getByTestId('profile-create').click();
      await page.getByTestId('profile-name').fill(`servers-${lang.code}`);
      await page.getByTestId('profile-create-ok').click();
      await expect.poll(() => page.url()).toContain(`/cte/setting/profiles-details/servers-${lang.code}`);
      await page.getByTestId('profile-connect-timeout').fill('60');
      await page.getByTestId('profile-save').click();
      await page.getByText(lang.saved).first().waitFor();
      const stored = await apiCall<{ connect_timeout_s: number }>(
        ksp.url,
        api.tdePolicy.profileDetail,
        undefined,
        token,
        { name: `servers-${lang.code}` },
      );
      expect(stored.data.connect_timeout_s).toBe(60);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('creates an RDM policy on the RDM pages', async () => {
    const { page, errors } = await newPage(browser, { locale: 'en-US' });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/rdm/policies/create-policies`);
    await page.getByTestId('policy-name').fill('ransom-guard');
    await page.getByTestId('policy-next').click();
    await chooseOption(page, 'policy-rdm-mode', 'Block');
    // A multiple select stays open after a choice: pick, then close it.
    await page.getByTestId('policy-trusted').click();
    await openDropdown(page)
      .locator('.ant-select-item-option')
      .filter({ hasText: 'backup-tools' })
      .first()
      .click();
    await expect.poll(() => page.getByTestId('policy-trusted').innerText()).toContain('backup-tools');
    await page.keyboard.press('Escape');
    await page.getByTestId('policy-next').click();
    await page.getByTestId('rule-add').waitFor();
    await page.getByTestId('policy-next').click();
    await expect.poll(() => page.getByTestId('review-trusted').innerText()).toContain('backup-tools');
    await page.getByTestId('policy-save').click();
    await expect.poll(() => page.url()).toContain('/rdm/policies/policies-details/');
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('RDM');
    await page.goto(`${ksp.url}/rdm/policies/policies`);
    await page.getByTestId('policy-row-ransom-guard').waitFor();
    const list = await apiCall<{ data: { id: string; name: string }[] }>(
      ksp.url,
      api.rdmPolicy.policyList,
      undefined,
      token,
      { page: 1, page_size: 10 },
    );
    const detail = await apiCall<{ rdm: { mode: string; trusted_process_sets: { name: string }[] } }>(
      ksp.url,
      api.rdmPolicy.policyDetail,
      undefined,
      token,
      { id: list.data.data[0]!.id },
    );
    expect(detail.data.rdm).toMatchObject({
      mode: 'block',
      trusted_process_sets: [{ name: 'backup-tools' }],
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits a narrow screen (below 992 px) without horizontal scrolling of the page', async () => {
    const { page } = await newPage(browser, { locale: 'en-US', width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/cte/policies/policy-elements`);
    await page.getByTestId('element-tab-process').click();
    await page.getByTestId('element-row-backup-tools').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The policy wizard too: its steps stand vertically.
    await page.goto(`${ksp.url}/cte/policies/create-policies`);
    await page.getByTestId('policy-name').waitFor();
    expect(await page.locator('.ant-steps-vertical').count()).toBe(1);
    const wizardOverflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(wizardOverflow).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
