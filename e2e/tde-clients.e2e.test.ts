import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';
import { enrolAgent } from './support/agent.js';
import { consoleRun } from './support/run.js';

const langs = [
  {
    code: 'en',
    locale: 'en-US',
    healthy: 'Healthy',
    groupOrigin: 'Group e2e-group',
    guardPoints: 'Guard points',
    rwpOnly: 'Ransomware protection only',
    binaries: 'Authorised binaries',
    groups: 'Client groups',
  },
  {
    code: 'zh',
    locale: 'zh-CN',
    healthy: '健康',
    groupOrigin: '客户端组 e2e-group',
    guardPoints: '防护点',
    rwpOnly: '仅勒索防护',
    binaries: '授权程序',
    groups: '客户端组',
  },
] as const;

/** TDE and RDM › clients, client groups, guard points: agents enrolled through the public call. */
describe('TDE and RDM clients, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'tde-clients' });
  let tdeId = '';
  let rdmId = '';
  let groupId = '';

  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    const enrol = async (usage: 'cte' | 'rdm', name: string, host: string) =>
      (
        await enrolAgent(ksp.url, token, {
          usage,
          tokenName: `e2e-${usage}`,
          name,
          host,
          mac: '02:00:00:00:00:02',
          agentVersion: '7.0.0',
        })
      ).clientId;
    tdeId = await enrol('cte', 'e2e-db', 'db.e2e.test');
    rdmId = await enrol('rdm', 'e2e-files', 'files.e2e.test');
    const group = await apiCall<{ id: string }>(
      ksp.url,
      api.tdeClient.groupCreate,
      { name: 'e2e-group', description: 'database hosts' },
      token,
    );
    expect(group.code, group.msg).toBe(0);
    groupId = group.data.id;
    expect(
      (await apiCall(ksp.url, api.tdeClient.groupAddMembers, { id: groupId, client_ids: [tdeId] }, token))
        .code,
    ).toBe(0);
    // Ransomware protection guard points need no policy.
    const groupGp = await apiCall(
      ksp.url,
      api.tdeClient.guardPointCreate,
      { group_id: groupId, path: '/srv/shared', type: 'rwp' },
      token,
    );
    expect(groupGp.code, groupGp.msg).toBe(0);
    const rdmGp = await apiCall(
      ksp.url,
      api.rdmClient.guardPointCreate,
      { client_id: rdmId, path: '/data', type: 'rwp' },
      token,
    );
    expect(rdmGp.code, rdmGp.msg).toBe(0);
  });

  for (const lang of langs) {
    it(`TDE clients, a client's guard points and groups, the client groups (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/cte/clients/main`);
      const row = page.getByTestId('client-row-e2e-db');
      await row.waitFor();
      expect(await row.innerText()).toContain(lang.healthy);
      expect(await row.innerText()).toContain('e2e-group');
      await expect.poll(() => page.getByTestId('client-count-total').innerText()).toContain('1');
      await shot(page, `tde-clients-${lang.code}`);

      await page.getByTestId('client-open-e2e-db').click();
      await page.getByTestId('client-identity').waitFor();
      expect(await page.getByTestId('client-identity').innerText()).toContain('db.e2e.test');
      await page.getByRole('tab', { name: lang.guardPoints }).click();
      const inherited = page.getByTestId('gp-row-/srv/shared');
      await inherited.waitFor();
      expect(await inherited.innerText()).toContain(lang.groupOrigin);
      await page.getByRole('tab', { name: lang.groups }).click();
      await page.getByTestId('client-group-e2e-group').waitFor();
      await page.getByRole('tab', { name: lang.binaries }).click();

      await page.goto(`${ksp.url}/cte/clients/clients-groups`);
      const groupRow = page.getByTestId('group-row-e2e-group');
      await groupRow.waitFor();
      expect(await groupRow.innerText()).toContain('database hosts');
      // A new group from the page.
      const name = `e2e-new-${lang.code}`;
      await page.getByTestId('group-add').click();
      await page.getByTestId('group-name').fill(name);
      await page.getByTestId('group-ok').click();
      await page.getByTestId(`group-row-${name}`).waitFor();

      await page.getByTestId('group-open-e2e-group').click();
      await page.getByTestId('member-row-e2e-db').waitFor();
      await page.getByRole('tab', { name: new RegExp(lang.guardPoints) }).click();
      await page.getByTestId('gp-row-/srv/shared').waitFor();
      await shot(page, `tde-client-group-${lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });

    it(`RDM clients with their protection mode (${lang.code})`, async () => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/rdm/clients/main`);
      const row = page.getByTestId('client-row-e2e-files');
      await row.waitFor();
      expect(await row.innerText()).toContain(lang.rwpOnly);
      await page.getByTestId('client-open-e2e-files').click();
      await expect.poll(() => page.getByTestId('client-protection-mode').innerText()).toBe(lang.rwpOnly);
      expect(await page.getByTestId('client-suspicious-count').innerText()).toBe('0');
      await page.getByRole('tab', { name: lang.guardPoints }).click();
      await page.getByTestId('gp-row-/data').waitFor();
      await shot(page, `rdm-client-${lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('fits a narrow screen (below 992 px) without horizontal scrolling of the page', async () => {
    const { page } = await newPage(browser, { locale: 'en-US', width: 800, height: 900 });
    await signIn(page, ksp.url);
    for (const path of ['/cte/clients/main', '/cte/clients/clients-groups', '/rdm/clients/main']) {
      await page.goto(`${ksp.url}${path}`);
      await page
        .getByTestId(
          path.includes('groups')
            ? 'group-row-e2e-group'
            : /rdm/.test(path)
              ? 'client-row-e2e-files'
              : 'client-row-e2e-db',
        )
        .waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.context().close();
  });
});
