import { beforeEach, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { http } from '../../api/client';
import { envelope, fakeAdapter, userRowFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import UserPage from './user-page';
import { signedInEachTest } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

const user = userRowFixture({
  id: '00000000-0000-4000-8000-000000000001',
  username: 'fiona',
  email: 'fiona@example.test',
  roles: [{ id: '00000000-0000-4000-8000-0000000000aa', name: 'Operator' }],
  domains: [{ id: '00000000-0000-4000-8000-0000000000bb', name: 'root' }],
  created_at: '2026-01-10T12:00:00Z',
});

signedInEachTest({ permissions: ['user:read', 'user:write'] });
beforeEach(() => {
  http.defaults.adapter = fakeAdapter((config) =>
    config.url === api.user.list.path ? envelope({ data: [user], total: 1 }) : envelope([]),
  ).adapter;
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
