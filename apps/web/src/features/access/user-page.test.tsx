import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { http, resetClient } from '../../api/client';
import { saveSignedIn } from '../../api/session';
import { envelope, fakeAdapter, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import UserPage from './user-page';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.
vi.setConfig({ testTimeout: 15_000 });

const originalAdapter = http.defaults.adapter;

const user = {
  id: '00000000-0000-4000-8000-000000000001',
  username: 'fiona',
  email: 'fiona@example.test',
  phone: '',
  directory: null,
  roles: [{ id: '00000000-0000-4000-8000-0000000000aa', name: 'Operator' }],
  domains: [{ id: '00000000-0000-4000-8000-0000000000bb', name: 'root' }],
  ukey_bound: false,
  ukey_serial: null,
  must_change_password: false,
  locked: false,
  has_app_secret: false,
  ip_whitelist: [],
  last_login_at: null,
  login_count: 0,
  last_failed_login_at: null,
  failed_login_count: 0,
  created_at: '2026-01-10T12:00:00Z',
};

beforeEach(() => {
  resetClient();
  saveSignedIn(signedInFixture({ permissions: ['user:read', 'user:write'] }));
  http.defaults.adapter = fakeAdapter((config) =>
    config.url === api.user.list.path ? envelope({ data: [user], total: 1 }) : envelope([]),
  ).adapter;
});
afterEach(() => {
  http.defaults.adapter = originalAdapter;
});

describe('user page', () => {
  it('sizes every column, so the table scrolls by their sum (no column left under the pinned actions)', async () => {
    const { container } = renderPage('/console/access/user', '/console/access/user', <UserPage />);
    await screen.findByText('fiona');
    const headers = [...container.querySelectorAll('thead th')];
    const created = headers.find((th) => th.textContent === 'Created');
    expect(created).toBeTruthy();
    // A fixed layout of known widths: antd sets the table to the sum (12 columns, 1,890 px, and the 48 px checkbox).
    const table = container.querySelector('.ant-table-content table, .ant-table-body table') as HTMLElement;
    expect(table.style.width).toBe('1938px');
    expect(within(screen.getByTestId('list-total')).getByText('1 item')).toBeTruthy();
  });
});
