import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { useQueryClient } from '@tanstack/react-query';
import { api, Code } from '@ksp/contracts';
import { http, resetClient } from '../../api/client';
import { configureClient } from '../../api/client-environment';
import { dashboardKeys } from '../../api/dashboard';
import { saveSignedIn } from '../../api/session';
import { envelope, fakeAdapter, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import DashboardPage from './dashboard-page';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.
vi.setConfig({ testTimeout: 15_000 });

const originalAdapter = http.defaults.adapter;

const summary = {
  version: '1.9.0',
  node: 'node-1',
  database: 'sqlite',
  started_at: '2026-01-10T00:00:00Z',
  uptime_seconds: 3600,
  domain: 'root',
  users: 7,
  domains: 2,
  audit_records: 42,
  active_sessions: 3,
  certificates: { valid: 12, expiring: 5 },
  recent: [],
};

let expired = false;

beforeEach(() => {
  resetClient();
  expired = false;
  saveSignedIn(signedInFixture());
  http.defaults.adapter = fakeAdapter((config) =>
    config.url === api.dashboard.summary.path && !expired
      ? envelope(summary)
      : envelope(null, Code.SESSION_EXPIRED, 'expired'),
  ).adapter;
});
afterEach(() => {
  http.defaults.adapter = originalAdapter;
});

/** Stands in for the dashboard's minute refresh. */
function Refetcher() {
  const client = useQueryClient();
  return (
    <button type="button" onClick={() => void client.refetchQueries({ queryKey: dashboardKeys.summary })}>
      refresh now
    </button>
  );
}

describe('dashboard page', () => {
  it('keeps its figures on screen under the session-expired dialog', async () => {
    const shown: string[] = [];
    renderPage(
      '/console/dashboard',
      '/console/dashboard',
      <>
        <Refetcher />
        <DashboardPage />
      </>,
    );
    // The test's own client hooks: the dialog is recorded, not drawn.
    configureClient({ showSessionExpired: (title) => shown.push(title) });
    expect(await screen.findByText('42')).toBeTruthy();
    expired = true;
    fireEvent.click(screen.getByText('refresh now'));
    await waitFor(() => expect(shown).toEqual(['Session expired']));
    expect(screen.getByText('42')).toBeTruthy();
  });

  it('shows the certificates expiring within 30 days', async () => {
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    expect((await screen.findByTestId('dashboard-certificates-expiring')).textContent).toBe('5');
    expect(screen.getByText('Certificates expiring within 30 days')).toBeTruthy();
    expect(screen.getByText('12 valid certificates')).toBeTruthy();
  });
});
