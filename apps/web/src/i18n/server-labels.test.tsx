import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { api, builtInConfig, ROOT_DOMAIN_DESCRIPTION } from '@ksp/contracts';
import { http, resetClient } from '../api/client';
import { saveSignedIn } from '../api/session';
import { summaryFixture } from '../features/dashboard/dashboard-fixtures';
import DashboardPage from '../features/dashboard/dashboard-page';
import { envelope, fakeAdapter, signedInFixture } from '../test-fixtures';
import { renderPage } from '../test-render';
import { i18n } from './i18n';
import { auditAction, configDescription, domainDescription, roleName, serverText } from './server-labels';
import { restoreAdapterAfterEach } from '../test-session';

restoreAdapterAfterEach();
beforeEach(async () => {
  await i18n.changeLanguage('zh');
});
afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('labels the server made, in Chinese', () => {
  it("shows a backup description the server made in the console's language, and follows a switch", async () => {
    const run = '0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';
    const message = { key: 'backup.rotationDescription', params: { task: 'nightly', run } };
    const english = `Key rotation: task nightly, run ${run}`;
    expect(serverText(english, message)).toBe(`密钥轮换：任务 nightly，运行 ${run}`);
    await i18n.changeLanguage('en');
    expect(serverText('服务器按请求语言给出的文字', message)).toBe(english);
    await i18n.changeLanguage('zh');
    // Typed text, and a message this console does not know yet, show as the server sent them.
    expect(serverText('before the upgrade', null)).toBe('before the upgrade');
    expect(serverText('Some later text', { key: 'backup.somethingNew', params: {} })).toBe('Some later text');
  });

  it('translates built-in configuration descriptions while they are the stock text', () => {
    const title = { key: 'title', built_in: true, description: builtInConfig.title.description };
    expect(configDescription(title)).toBe('顶栏显示的产品标题');
    expect(configDescription({ ...title, description: 'Our own words' })).toBe('Our own words');
    expect(configDescription({ key: 'x.custom', built_in: false, description: 'Typed' })).toBe('Typed');
  });

  it("translates the root domain's description, never another domain's", () => {
    expect(domainDescription({ name: 'root', description: ROOT_DOMAIN_DESCRIPTION })).toBe('根域');
    expect(domainDescription({ name: 'finance', description: ROOT_DOMAIN_DESCRIPTION })).toBe('Root domain');
    expect(domainDescription({ name: 'root', description: 'HQ' })).toBe('HQ');
  });

  it('translates built-in role names; custom roles keep the name they were given', () => {
    expect(roleName('Administrator')).toBe('管理员');
    expect(roleName('Auditor')).toBe('审计员');
    expect(roleName('Key custodian')).toBe('Key custodian');
  });

  it('names audit actions, and shows an unknown code or a branch as it came', () => {
    expect(auditAction('user.login')).toBe('登录');
    expect(auditAction('system.init.component')).toBe('生成密钥分量');
    expect(auditAction('user.domain.add-user')).toBe('向域添加用户');
    expect(auditAction('user.domain')).toBe('user.domain');
    expect(auditAction('quantum.calibrate')).toBe('quantum.calibrate');
  });

  it('shows the recent audit actions of the dashboard in Chinese', async () => {
    resetClient();
    saveSignedIn(signedInFixture());
    const record = (id: string, action: string, target: string) => ({
      id,
      at: '2026-01-01T00:00:00Z',
      username: 'admin',
      domain: 'root',
      action,
      target,
      result: 'success',
      source_ip: '127.0.0.1',
    });
    http.defaults.adapter = fakeAdapter((config) =>
      config.url === api.dashboard.summary.path
        ? envelope({
            ...summaryFixture,
            version: 'v1.9.0',
            node: 'node-1',
            database: 'sqlite',
            started_at: '2026-01-01T00:00:00Z',
            uptime_seconds: 60,
            domain: 'root',
            users: 1,
            domains: 1,
            audit_records: 2,
            active_sessions: 1,
            recent: [record('1', 'user.login', 'admin'), record('2', 'system.init.component', '3/3')],
          })
        : envelope([]),
    ).adapter;
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    const login = (await screen.findByText('登录')).closest('tr') as HTMLElement;
    expect(within(login).getAllByText('admin')).toHaveLength(2); // who, and whom
    expect(screen.getByText('生成密钥分量')).toBeTruthy();
    expect(screen.queryByText('user.login')).toBeNull();
  });
});
