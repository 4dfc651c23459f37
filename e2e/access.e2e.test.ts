import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newPage, newPageIn, shot } from './support/browser.js';
import {
  openMenu,
  pickOptions,
  rowWith,
  signInToConsole,
  signInUi,
  signOutUi,
  storedToken,
  tickPermission,
  visibleList,
} from './support/console-ui.js';
import { apiCall } from './support/server.js';
import { ADMIN, createUserByApi, idByName, loginByApi } from './support/setup.js';
import { cellShown, cellUnder } from './support/geometry.js';
import { startBridge } from './support/ukey-bridge.js';
import { ADMIN_DN, ADMIN_PW, BASE_DN, slapdAvailable, startSlapd } from '../apps/server/src/test/slapd.js';
import { createTestToken, softhsmAvailable } from '../tools/ukey-bridge/src/softhsm-token.js';
import { api } from '@ksp/contracts';
import { consoleRun } from './support/run.js';

/** Whether the console's Content-Security-Policy lets the page call `origin` (connect-src). */
function cspAllowsConnect(csp: string, origin: string): boolean {
  const directive = csp
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([name]) => name === 'connect-src');
  if (!directive) return false;
  const { protocol, hostname } = new URL(origin);
  return directive
    .slice(1)
    .some((source) => source === '*' || source === origin || source === `${protocol}//${hostname}:*`);
}

for (const [peer, available] of [
  ['slapd (Debian slapd, ldap-utils)', slapdAvailable()],
  ['SoftHSM2 and OpenSC (Debian softhsm2, opensc)', softhsmAvailable()],
] as const) {
  if (!available) {
    if (process.env.CI === 'true') throw new Error(`${peer} is required in CI`);
    console.warn(`\n!!! ${peer} not installed: its end-to-end test cannot run !!!\n`);
  }
}

const FIONA = {
  username: 'fiona',
  first: 'Fiona-Pass-1',
  second: 'Fiona-Pass-2',
  email: 'fiona@example.test',
};

describe('access management through the console', () => {
  const { ksp, browser } = consoleRun({ name: 'access' });

  async function adminPage(): Promise<{ page: Page; errors: string[] }> {
    const { page, errors } = await newPage(browser);
    await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
    return { page, errors };
  }

  it('an administrator makes a custom role and a user in a second domain; the user changes its password, sees only its menu and switches domain', async () => {
    const { page, errors } = await adminPage();

    // A second domain.
    await openMenu(page, 'Settings', 'Domains');
    await page.waitForURL(/\/console\/setting\/domain/);
    await page.getByTestId('domain-add').click();
    await page.getByTestId('domain-name').fill('finance');
    await page.getByTestId('domain-description').fill('Finance department');
    await page.getByTestId('form-modal-ok').click();
    await rowWith(page, 'Finance department').waitFor();

    // A custom role from the permission tree.
    await openMenu(page, 'Access management', 'Roles');
    await page.waitForURL(/\/console\/access\/role/);
    await rowWith(page, 'Administrator').waitFor();
    await page.getByTestId('role-add').click();
    await page.getByTestId('role-name').fill('Helpdesk');
    await page.getByTestId('role-description').fill('Looks after users');
    await page.getByTestId('role-save').click();
    await page.getByText('Choose at least one permission').waitFor();
    for (const code of ['dashboard:read', 'user:read', 'domain:read']) await tickPermission(page, code);
    await expect
      .poll(() => page.getByTestId('permission-count').innerText())
      .toMatch(/^3 of \d+ permissions$/);
    await shot(page, 'access-role-editor');
    await page.getByTestId('role-save').click();
    const roleRow = rowWith(page, 'Helpdesk');
    await roleRow.waitFor();
    expect(await roleRow.getByTestId('role-type').innerText()).toBe('Custom');
    expect(await roleRow.getByTestId('role-permission-count').innerText()).toMatch(/^3 \/ \d+$/);
    // Built-in roles are read-only.
    await page.getByTestId('role-open-Auditor').click();
    await page.getByTestId('role-read-only').waitFor();
    await page.keyboard.press('Escape');

    // The user, with the form's checks first.
    await openMenu(page, 'Access management', 'Users');
    await page.waitForURL(/\/console\/access\/user/);
    await rowWith(page, ADMIN.email).waitFor();
    await page.getByTestId('user-add').click();
    await page.getByTestId('user-username').fill(FIONA.username);
    await page.getByTestId('user-password').fill('abc');
    await page.getByTestId('user-confirm').fill('abd');
    await page.getByTestId('user-email').fill('not-an-email');
    await page.getByTestId('user-ip').fill('10.0.0.0/8\n300.1.1.1');
    await page.getByTestId('user-create-ok').click();
    await page.getByText('Password cannot be less than 5 characters').waitFor();
    await page.getByText('The two passwords you entered do not match').waitFor();
    await page.getByText('Invalid email format').waitFor();
    await page.getByText('Not an IP address or CIDR range: 300.1.1.1').waitFor();
    await page.getByTestId('user-password').fill('abcdefgh');
    await page.getByText('Password does not meet the rules!').waitFor();
    expect(await page.getByTestId('password-rules').innerText()).toContain('at least 1 uppercase letter(s)');
    await page.getByTestId('user-password').fill(FIONA.first);
    await page.getByTestId('user-confirm').fill(FIONA.first);
    await page.getByTestId('user-email').fill(FIONA.email);
    await page.getByTestId('user-ip').fill('');
    await pickOptions(page, page.getByTestId('user-roles'), ['Helpdesk']);
    await pickOptions(page, page.getByTestId('user-domains'), ['root', 'finance']);
    expect(await page.getByTestId('user-must-change').getAttribute('aria-checked')).toBe('true');
    await shot(page, 'access-user-create');
    await page.getByTestId('user-create-ok').click();
    const userRow = rowWith(page, FIONA.email);
    await userRow.waitFor();
    const rowText = await userRow.innerText();
    expect(rowText).toContain('Helpdesk');
    expect(rowText).toContain('finance');
    expect(rowText).toContain('Must change password');
    await shot(page, 'access-users');

    // Refusals come from the server, in its words: the last Administrator stays one.
    await page.getByTestId(`user-edit-${ADMIN.username}`).click();
    await pickOptions(page, page.getByTestId('user-edit-roles'), ['Administrator', 'Helpdesk']);
    await page.getByTestId('form-modal-ok').click();
    await page.getByText('At least one user must keep the Administrator role').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    // An app secret is shown once, with a copy button.
    await userRow.getByTestId(`user-more-${FIONA.username}`).click();
    await page.getByRole('menuitem', { name: 'Regenerate app secret' }).click();
    // The application's tokens may carry one of the user's roles rather than all of them.
    await pickOptions(page, page.getByTestId('secret-role'), ['Helpdesk']);
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('secret-modal').waitFor();
    const appSecret = await page.getByTestId('secret-value').innerText();
    expect(appSecret).toMatch(/^ksp_/);
    const appToken = await apiCall<{ token: string }>(ksp.url, api.user.appLogin, {
      username: FIONA.username,
      app_secret: appSecret,
    });
    expect(appToken.code).toBe(0);
    const appInfo = await apiCall<{ userinfo: { permissions: string[] } }>(
      ksp.url,
      api.user.info,
      undefined,
      appToken.data.token,
    );
    expect(appInfo.data.userinfo.permissions.sort()).toEqual(['dashboard:read', 'domain:read', 'user:read']);
    await page.getByTestId('secret-copy').waitFor();
    await page.getByTestId('secret-close').click();

    // The role is held: it cannot go; its users are listed.
    await openMenu(page, 'Access management', 'Roles');
    await rowWith(page, 'Helpdesk').getByTestId('role-delete-Helpdesk').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByText("Role 'Helpdesk' is held by 1 user(s); take it from them first").waitFor();
    await rowWith(page, 'Helpdesk').getByTestId('role-users-Helpdesk').click();
    await expect.poll(() => page.getByTestId('role-user-list').innerText()).toContain(FIONA.username);
    await page.keyboard.press('Escape');

    // Domains: the root keeps its name; a domain with members cannot be deleted.
    await openMenu(page, 'Settings', 'Domains');
    await rowWith(page, 'root').getByTestId('domain-edit-root').click();
    await page.getByTestId('domain-name').fill('main');
    await page.getByTestId('form-modal-ok').click();
    await page.getByText('The root domain cannot be renamed or deleted').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    const finance = rowWith(page, 'Finance department');
    // Its creator did not become a member: Fiona is its only one.
    await expect.poll(() => finance.getByTestId('domain-member-count').innerText()).toBe('1');
    await finance.getByTestId('domain-members-finance').click();
    await expect.poll(() => page.getByTestId('domain-member-list').innerText()).toContain(FIONA.username);
    await page.keyboard.press('Escape');
    await finance.getByTestId('domain-delete-finance').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByText("Domain 'finance' is not empty (1 member(s), 0 object(s))").waitFor();
    expect(errors).toEqual([]);
    await signOutUi(page);

    // The user: forced password change, then only the permitted menu.
    await signInUi(page, ksp.url, FIONA.username, FIONA.first);
    await page.waitForURL(/\/change-password/);
    await page.getByTestId('password-old').fill(FIONA.first);
    await page.getByTestId('password-new').fill(FIONA.second);
    await page.getByTestId('password-confirm').fill(FIONA.second);
    await page.getByTestId('password-submit').click();
    await page.getByTestId('side-menu').waitFor();
    const menu = page.getByTestId('side-menu');
    await expect.poll(() => menu.innerText()).toContain('Dashboard');
    const menuText = await menu.innerText();
    expect(menuText).toContain('Access management');
    expect(menuText).toContain('Settings');
    expect(menuText).not.toContain('Keys');
    await menu.getByText('Access management', { exact: true }).click();
    await expect.poll(() => menu.innerText()).toContain('Users');
    expect(await menu.innerText()).not.toMatch(/Roles|Registration tokens|LDAP/);
    await menu.getByText('Settings', { exact: true }).click();
    await expect.poll(() => menu.innerText()).toContain('Domains');
    expect(await menu.innerText()).not.toMatch(/Password policy|Configuration/);
    // Read-only: no add button on the users page.
    await openMenu(page, 'Access management', 'Users');
    await rowWith(page, FIONA.username).waitFor();
    expect(await page.getByTestId('user-add').count()).toBe(0);

    // Switch to the second domain: a new token bound to it.
    const before = await storedToken(page);
    await page.getByTestId('domain-switcher').click();
    await page.getByRole('menuitem', { name: 'finance' }).click();
    // The console reloads at the root in the new domain.
    await page.waitForURL(/\/console\/dashboard/);
    await page.waitForLoadState('load');
    await expect.poll(() => page.getByTestId('domain-switcher').innerText()).toContain('finance');
    const after = await storedToken(page);
    expect(after).not.toBe(before);
    const info = await apiCall<{ userinfo: { domain: string } }>(ksp.url, api.user.info, undefined, after);
    expect(info.data.userinfo.domain).toBe('finance');
    expect(errors).toEqual([]);
    await page.context().close();
  });
  it.skipIf(!slapdAvailable())(
    'connects a directory through the form, tests it step by step, maps a group and signs in as corp/alice',
    async () => {
      const slapd = await startSlapd();
      try {
        const { page, errors } = await adminPage();
        await openMenu(page, 'Access management', 'LDAP');
        await page.waitForURL(/\/console\/access\/ldap/);
        await page.getByTestId('ldap-add').click();
        await page.getByTestId('ldap-name').fill('corp');
        await page.getByTestId('ldap-url').fill(slapd.ldapsUrl);
        await page.getByTestId('ldap-bind-dn').fill(ADMIN_DN);
        await page.getByTestId('ldap-bind-password').fill(ADMIN_PW);
        await page.getByTestId('ldap-ca').fill(slapd.caPem);
        expect(await page.getByTestId('ldap-verify').getAttribute('aria-checked')).toBe('true');
        await page.getByTestId('ldap-user-base').fill(`ou=people,${BASE_DN}`);
        expect(await page.getByTestId('ldap-username-attr').inputValue()).toBe('uid');
        await page.getByTestId('ldap-group-base').fill(`ou=groups,${BASE_DN}`);
        await page.getByTestId('ldap-map-add').click();
        await page.getByTestId('ldap-map-group-0').fill('kms-admins');
        await pickOptions(page, page.getByTestId('ldap-map-role-0'), ['Administrator']);

        // Test the unsaved values: every step passes and the groups come back.
        await page.getByTestId('ldap-form-test').click();
        await page.getByTestId('ldap-test-username').fill('alice');
        await page.getByTestId('ldap-test-password').fill('alice-pw-1');
        await page.getByTestId('ldap-test-run').click();
        await page.getByTestId('ldap-test-result').waitFor();
        for (const step of ['connect', 'bind', 'find-user', 'bind-user', 'groups']) {
          expect(await page.getByTestId(`ldap-step-${step}`).getAttribute('data-ok'), step).toBe('true');
        }
        expect(await page.getByTestId('ldap-test-result').innerText()).toMatch(/\d+ ms/);
        expect(await page.getByTestId('ldap-test-groups').innerText()).toContain('kms-admins');
        await shot(page, 'access-ldap-test');
        // A wrong password fails at "bind as the user", after three good steps.
        await page.getByTestId('ldap-test-password').fill('wrong');
        await page.getByTestId('ldap-test-run').click();
        await expect
          .poll(() => page.getByTestId('ldap-step-bind-user').getAttribute('data-ok'))
          .toBe('false');
        expect(await page.getByTestId('ldap-step-find-user').getAttribute('data-ok')).toBe('true');
        expect(await page.getByTestId('ldap-step-groups').getAttribute('data-ok')).toBe('skipped');
        await page
          .getByRole('dialog')
          .filter({ hasText: 'Test corp' })
          .getByRole('button', { name: 'Close' })
          .last()
          .click();

        await page.getByTestId('ldap-save').click();
        const row = rowWith(page, 'corp');
        await row.waitFor();
        expect(await row.getByTestId('ldap-mapping-count').innerText()).toBe('1');
        // The stored connection tests from the list too (the password stays on the server).
        await page.getByTestId('ldap-test-corp').click();
        await page.getByTestId('ldap-test-username').fill('alice');
        await page.getByTestId('ldap-test-password').fill('alice-pw-1');
        await page.getByTestId('ldap-test-run').click();
        await expect.poll(() => page.getByTestId('ldap-test-result').getAttribute('data-ok')).toBe('true');
        await page.keyboard.press('Escape');
        expect(errors).toEqual([]);
        await signOutUi(page);

        await signInToConsole(page, ksp.url, 'corp/alice', 'alice-pw-1');
        await expect.poll(() => page.getByTestId('user-menu').innerText()).toContain('corp/alice');
        await openMenu(page, 'Access management', 'Users');
        const alice = rowWith(page, 'corp/alice');
        await alice.waitFor();
        expect(await alice.innerText()).toContain('Administrator');
        expect(errors).toEqual([]);
        await page.context().close();
      } finally {
        await slapd.stop();
      }
    },
  );

  it('a domain administrator sees no root users and no global settings, and a direct call to them is refused', async () => {
    const rootToken = await loginByApi(ksp.url);
    const branch = await apiCall<{ id: string }>(ksp.url, api.domain.create, { name: 'branch' }, rootToken);
    expect(branch.code).toBe(0);
    const adminRole = await idByName(ksp.url, rootToken, api.role.list, 'Administrator');
    await createUserByApi(ksp.url, rootToken, {
      username: 'bea',
      password: 'Branch-Pass-1',
      email: 'bea@example.test',
      role_ids: [adminRole],
      domain_ids: [branch.data.id],
    });

    const { page, errors } = await newPage(browser);
    await signInToConsole(page, ksp.url, 'bea', 'Branch-Pass-1');
    const menu = page.getByTestId('side-menu');
    await menu.getByText('Access management', { exact: true }).click();
    await expect.poll(() => menu.innerText()).toContain('Users');
    expect(await menu.innerText()).not.toContain('LDAP');
    await menu.getByText('Settings', { exact: true }).click();
    await expect.poll(() => menu.innerText()).toContain('Domains');
    expect(await menu.innerText()).not.toMatch(/Password policy|Configuration/);
    await shot(page, 'access-domain-admin-menu');
    // Users: only branch's; no root user is listed.
    await openMenu(page, 'Access management', 'Users');
    await rowWith(page, 'bea@example.test').waitFor();
    expect(await visibleList(page).innerText()).not.toContain(ADMIN.email);
    // Domains: only its own.
    await openMenu(page, 'Settings', 'Domains');
    await rowWith(page, 'branch').waitFor();
    expect(await page.getByTestId('domain-edit-root').count()).toBe(0);
    expect(errors).toEqual([]);

    // The menu is not the check: straight calls with the console's own token are refused.
    const token = await storedToken(page);
    const mine = await apiCall<{ userinfo: { domain: string } }>(ksp.url, api.user.info, undefined, token);
    expect(mine.data.userinfo.domain).toBe('branch');
    const config = await apiCall(ksp.url, api.config.list, undefined, token, { page: 1, page_size: 10 });
    expect(config.code).toBe(4030);
    const adminId = (
      await apiCall<{ userinfo: { id: string } }>(ksp.url, api.user.info, undefined, rootToken)
    ).data.userinfo.id;
    const takeover = await apiCall(
      ksp.url,
      api.user.updatePassword,
      { id: adminId, password: 'Taken-Over-1' },
      token,
    );
    expect(takeover.code).toBe(4040);
    const escalate = await apiCall(
      ksp.url,
      api.user.create,
      {
        username: 'mallory',
        password: 'Branch-Pass-1',
        email: 'm@example.test',
        role_ids: [adminRole],
        domain_ids: [await idByName(ksp.url, rootToken, api.domain.list, 'root')],
      },
      token,
    );
    expect([4030, 4040]).toContain(escalate.code);
    await page.context().close();
  });

  it('locks an account after the allowed failed attempts, and an administrator unlocks it', async () => {
    const { page, errors } = await adminPage();
    // The policy: three attempts; the form checks minima against the maximum first.
    await openMenu(page, 'Settings', 'Password policy');
    await page.waitForURL(/\/console\/setting\/password-policy/);
    await page.getByTestId('policy-form').waitFor();
    await page.getByTestId('policy-min_length').fill('70');
    await page.getByTestId('policy-problems').waitFor();
    expect(await page.getByTestId('policy-problems').innerText()).toContain(
      'The minimum length (70) cannot exceed the maximum length (64)',
    );
    await page.getByTestId('policy-min_length').fill('8');
    await page.getByTestId('policy-min_special').fill('1');
    await expect
      .poll(() => page.getByTestId('policy-preview').innerText())
      .toContain('at least 1 special character(s)');
    await page.getByTestId('policy-min_special').fill('0');
    await page.getByTestId('policy-max_failed_attempts').fill('3');
    await page.getByTestId('policy-expiry_days').fill('0');
    await expect
      .poll(() => page.getByTestId('policy-summary').innerText())
      .toContain('The account locks after 3 failed attempt(s) in a row');
    expect(await page.getByTestId('policy-summary').innerText()).toContain('Passwords never expire');
    await shot(page, 'access-policy');
    await page.getByTestId('policy-save').click();
    await page.getByText('Saved').first().waitFor();

    const token = await loginByApi(ksp.url);
    await createUserByApi(ksp.url, token, {
      username: 'lucy',
      password: 'Lucy-Pass-1',
      email: 'lucy@example.test',
      role_ids: [await idByName(ksp.url, token, api.role.list, 'Auditor')],
    });

    const { page: lucy } = await newPage(browser);
    for (let i = 0; i < 3; i++) {
      await signInUi(lucy, ksp.url, 'lucy', 'wrong-password');
      await expect
        .poll(() => lucy.getByTestId('login-error').innerText())
        .toContain('Incorrect username or password');
    }
    await signInUi(lucy, ksp.url, 'lucy', 'Lucy-Pass-1');
    await expect
      .poll(() => lucy.getByTestId('login-error').innerText())
      .toContain('The account is locked after too many failed logins');
    await shot(lucy, 'access-locked');

    // The administrator finds it with the status filter (kept in the URL) and unlocks it.
    await openMenu(page, 'Access management', 'Users');
    await page.waitForURL(/\/console\/access\/user/);
    await pickOptions(page, page.locator('[data-testid="filter-status"]:visible'), ['Locked']);
    await page.locator('[data-testid="list-search-submit"]:visible').click();
    await page.waitForURL(/status=locked/);
    const row = rowWith(page, 'lucy');
    await row.waitFor();
    expect(await row.getByTestId('user-status').innerText()).toBe('Locked');
    await expect.poll(() => rowWith(page, ADMIN.email).count()).toBe(0);
    await row.getByTestId('user-more-lucy').click();
    await page.getByRole('menuitem', { name: 'Unlock' }).click();
    await page.getByText('lucy unlocked').waitFor();
    await expect.poll(() => rowWith(page, 'lucy').count()).toBe(0);
    await page.locator('[data-testid="list-page"]:visible').getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => rowWith(page, 'lucy').getByTestId('user-status').innerText()).toBe('Active');

    // At 1280 px every column can be scrolled into view: at the far right "Created" ends
    // where the pinned actions column begins, not under it.
    const list = page.locator('[data-testid="list-page"]:visible');
    await list
      .locator('.ant-table-content, .ant-table-body')
      .first()
      .evaluate((el) => {
        el.scrollLeft = el.scrollWidth;
      });
    const createdBox = await list.locator('thead th', { hasText: /^Created$/ }).boundingBox();
    const actionsBox = await list.locator('thead th', { hasText: /^Actions$/ }).boundingBox();
    expect(createdBox && actionsBox && createdBox.x + createdBox.width).toBeLessThanOrEqual(
      (actionsBox?.x ?? 0) + 1,
    );

    await signInToConsole(lucy, ksp.url, 'lucy', 'Lucy-Pass-1');
    expect(errors).toEqual([]);
    await lucy.context().close();
    await page.context().close();
  });

  it('issues registration tokens whose secret is shown once, and edits, renews and deletes them', async () => {
    const { page, errors } = await adminPage();
    await openMenu(page, 'Access management', 'Registration tokens');
    await page.waitForURL(/\/console\/access\/token/);
    await page.getByTestId('token-add').click();
    await page.getByTestId('token-name').fill('branch-agents');
    expect(await page.getByTestId('token-validity').inputValue()).toBe('365');
    expect(await page.getByTestId('token-capacity').inputValue()).toBe('0');
    await page.getByText('0 = unlimited').waitFor();
    await page.getByTestId('form-modal-ok').click();
    await page.getByTestId('secret-modal').waitFor();
    const secret = await page.getByTestId('secret-value').innerText();
    expect(secret).toMatch(/^ksprt_/);
    expect(await page.getByTestId('secret-modal').innerText()).toContain('it will not be shown again');
    await shot(page, 'access-token-secret');
    await page.getByTestId('secret-close').click();
    const row = rowWith(page, 'branch-agents');
    await row.waitFor();
    expect(await row.getByTestId('token-expiry').innerText()).toBe('- (Forever)');
    expect(await row.innerText()).toContain('Unlimited');
    expect(await row.getByTestId('token-status').innerText()).toBe('Valid');

    await row.getByTestId('token-edit-branch-agents').click();
    await page.getByTestId('token-capacity').fill('2');
    await page.getByTestId('token-expiry-mode').getByText('Until', { exact: true }).click();
    await page.getByTestId('token-expiry-date').waitFor();
    await page.getByTestId('form-modal-ok').click();
    await expect
      .poll(() => rowWith(page, 'branch-agents').getByTestId('token-expiry').innerText())
      .toMatch(/^\d{4}-\d\d-\d\d /);

    await rowWith(page, 'branch-agents').getByTestId('token-renew-branch-agents').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('secret-modal').waitFor();
    expect(await page.getByTestId('secret-value').innerText()).not.toBe(secret);
    await page.getByTestId('secret-close').click();

    await page.locator('[data-testid="batch-delete"]:visible').click();
    await page.getByText('Please select at least 1 item!').waitFor();
    await rowWith(page, 'branch-agents').getByRole('checkbox').check();
    await page.locator('[data-testid="batch-delete"]:visible').click();
    await page.getByText(/cannot be undone/).waitFor();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => rowWith(page, 'branch-agents').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  for (const view of [
    { width: 1440, height: 900, lang: 'en', status: 'Status', email: 'Email', roles: 'Roles' },
    { width: 1280, height: 800, lang: 'zh', status: '状态', email: '邮箱', roles: '角色' },
    { width: 1440, height: 900, lang: 'zh', status: '状态', email: '邮箱', roles: '角色' },
    { width: 1280, height: 800, lang: 'en', status: 'Status', email: 'Email', roles: 'Roles' },
  ] as const) {
    it(`shows a user's status, e-mail and roles beside the pinned columns at ${view.width} px (${view.lang})`, async () => {
      const { page, errors } = await newPageIn(browser, ksp.url, view);
      await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);
      await page.goto(`${ksp.url}/console/access/user`);
      const row = rowWith(page, ADMIN.email);
      await row.waitFor();
      for (const title of [view.status, view.email, view.roles])
        expect(`${title}: ${await cellShown(await cellUnder(row, title))}`).toBe(`${title}: shown`);
      // The status tag itself is where a click lands (nothing pinned lies over it).
      expect(await row.getByTestId('user-status').isVisible()).toBe(true);
      await shot(page, `access-users-${view.width}-${view.lang}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('works at 375 px: the user list scrolls sideways, forms stack', async () => {
    const { page, errors } = await newPage(browser, { width: 375, height: 740 });
    await signInUi(page, ksp.url, ADMIN.username, ADMIN.password);
    await page.waitForURL(/\/console\/dashboard/);
    await page.goto(`${ksp.url}/console/access/user`);
    await rowWith(page, ADMIN.email).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot(page, 'access-users-375');
    await page.getByTestId('user-add').click();
    await page.getByTestId('user-username').waitFor();
    const box = await page.getByTestId('user-username').boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    await shot(page, 'access-user-create-375');
    // In Chinese too (the language cookie).
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
    await page.goto(`${ksp.url}/console/access/role`);
    // Built-in role names are shown translated.
    const administrator = visibleList(page).locator('tr.ant-table-row', {
      has: page.getByTestId('role-open-Administrator'),
    });
    await administrator.getByText('管理员', { exact: true }).waitFor();
    expect(await administrator.getByTestId('role-type').innerText()).toBe('内置');
    expect(await visibleList(page).innerText()).toContain('角色名称');
    await shot(page, 'access-roles-375-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.skipIf(!softhsmAvailable())(
    'binds a UKEY on the profile page and, with MFA on, logs in with the password and the PIN through the bridge',
    async () => {
      const token = createTestToken('admin-ukey');
      const bridge = await startBridge(token.conf, ksp.url);
      try {
        // The console's own CSP must let the page reach the bridge on loopback.
        const csp = (await fetch(`${ksp.url}/login`)).headers.get('content-security-policy') ?? '';
        expect(cspAllowsConnect(csp, bridge.url)).toBe(true);
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        await signInToConsole(page, ksp.url, ADMIN.username, ADMIN.password);

        // Where the bridge listens: the UKEY_BRIDGE configuration entry.
        await openMenu(page, 'Settings', 'Configuration');
        await page.getByTestId('config-edit-UKEY_BRIDGE').click();
        await page.getByTestId('config-value').fill(bridge.url);
        await page.getByTestId('form-modal-ok').click();
        await rowWith(page, bridge.url).waitFor();

        // Bind the UKEY plugged in, from the profile page.
        await page.getByTestId('user-menu').click();
        await page.getByTestId('profile-link').click();
        await page.waitForURL(/\/console\/user-setting\/index/);
        await page.getByTestId('profile-ukey').waitFor();
        const state = page.getByTestId('profile-ukey-state');
        await expect.poll(() => state.getAttribute('data-state')).toBe('unbound');
        await page.getByTestId('profile-ukey-bind').click();
        await expect.poll(() => state.getAttribute('data-state')).toBe('bound');
        const serial = await page.getByTestId('profile-ukey-serial').innerText();
        expect(serial.length).toBeGreaterThan(0);
        await shot(page, 'access-profile-ukey');

        // MFA on, from the configuration page.
        await openMenu(page, 'Settings', 'Configuration');
        await page.getByTestId('config-edit-MFA').click();
        await page.getByTestId('config-mfa').click();
        await page.getByTestId('form-modal-ok').click();
        await expect.poll(() => rowWith(page, 'MFA').innerText()).toContain('Yes');
        await openMenu(page, 'Access management', 'Users');
        expect(await rowWith(page, ADMIN.email).getByTestId('user-ukey-bound').innerText()).toContain(serial);
        await signOutUi(page);

        await signInUi(page, ksp.url, ADMIN.username, ADMIN.password);
        await page.getByTestId('ukey-panel').waitFor();
        expect(await page.getByTestId('ukey-panel').innerText()).toContain('Please log in with Ukey');
        await page.getByTestId('ukey-pin').fill('123');
        await page.getByTestId('ukey-submit').click();
        await page.getByText('PIN cannot be less than 6 characters').waitFor();
        await page.getByTestId('ukey-pin').fill('000000');
        await page.getByTestId('ukey-submit').click();
        await expect.poll(() => page.getByTestId('ukey-error').innerText()).toContain('The PIN is incorrect');
        await shot(page, 'access-ukey-wrong-pin');
        await page.getByTestId('ukey-pin').fill(token.pin);
        await page.getByTestId('ukey-submit').click();
        await page.getByTestId('side-menu').waitFor();
        await page.waitForURL(/\/console\/dashboard/);
        expect(errors).toEqual([]);
        await context.close();
      } finally {
        await bridge.stop();
        token.remove();
      }
    },
  );
});
