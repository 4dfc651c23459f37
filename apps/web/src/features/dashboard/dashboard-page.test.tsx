import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useQueryClient } from '@tanstack/react-query';
import { api, Code } from '@ksp/contracts';
import { http } from '../../api/client';
import { configureClient } from '../../api/client-environment';
import { dashboardKeys } from '../../api/dashboard';
import { saveSignedIn } from '../../api/session';
import { envelope, fakeAdapter, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { operationsFixture, summaryFixture } from './dashboard-fixtures';
import DashboardPage from './dashboard-page';
import { signedInEachTest } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

let summary: object = summaryFixture;
const operations = operationsFixture;

let expired = false;

signedInEachTest({ permissions: ['dashboard:read', 'key:read', 'cert:read', 'log:read'] });
beforeEach(() => {
  expired = false;
  summary = summaryFixture;
  http.defaults.adapter = fakeAdapter((config) =>
    expired
      ? envelope(null, Code.SESSION_EXPIRED, 'expired')
      : config.url === api.dashboard.summary.path
        ? envelope(summary)
        : config.url === api.dashboard.operations.path
          ? envelope(operations)
          : envelope(null, Code.NOT_FOUND, 'not found'),
  ).adapter;
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

  it('shows certificates expiring within 30, 60 and 90 days, each linked to the certificate list', async () => {
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    const in30 = await screen.findByTestId('dashboard-certificates-30');
    expect(in30.textContent).toBe('5');
    expect(in30.getAttribute('href')).toBe('/console/cert/local?expiring=true');
    expect(screen.getByTestId('dashboard-certificates-60').textContent).toBe('6');
    expect(screen.getByTestId('dashboard-certificates-90').textContent).toBe('9');
    expect(screen.getByText('Within 90 days')).toBeTruthy();
    expect(screen.getByText('12 valid certificates')).toBeTruthy();
  });

  it('counts one valid certificate in the singular', async () => {
    summary = { ...summaryFixture, certificates: { ...summaryFixture.certificates, valid: 1 } };
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    expect(await screen.findByText('1 valid certificate')).toBeTruthy();
  });

  it('links keys by state and algorithm to the filtered key list, and failed sign-ins to the log', async () => {
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    const inUse = await screen.findByTestId('dashboard-keys-in-use');
    expect(inUse.textContent).toBe('8');
    expect(inUse.getAttribute('href')).toBe('/console/key?state=in-use');
    expect(screen.getByText('ML-DSA-44 2').getAttribute('href')).toBe('/console/key?algorithm=ML-DSA-44');
    expect(screen.getByTestId('dashboard-keys-rotation-overdue').textContent).toBe('1');
    expect(screen.getByTestId('dashboard-keys-rotation-due').textContent).toBe('3');
    const failed = screen.getByTestId('dashboard-failed-logins');
    expect(failed.textContent).toBe('4');
    expect(failed.getAttribute('href')).toBe('/console/log?time=24h&result=failure&action=user.login');
    // Without user:read the user count is a figure, not a link.
    expect(screen.getByTestId('dashboard-users').getAttribute('href')).toBeNull();
  });

  it('shows the operations by class, the services not configured yet, the nodes and when it was updated', async () => {
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    expect((await screen.findByTestId('dashboard-ops-encrypt')).textContent).toBe('2');
    expect(screen.getByTestId('dashboard-operations-total').textContent).toBe('3 in total');
    expect(screen.getAllByText('Not configured')).toHaveLength(3);
    expect(screen.getByText('Normal')).toBeTruthy();
    expect(screen.getByText('node-0')).toBeTruthy();
    expect(screen.getByText('Down')).toBeTruthy();
    expect(screen.getByTestId('dashboard-updated-at').textContent).toMatch(/^Updated at \d\d:\d\d:\d\d$/);
    expect(screen.getByTestId('dashboard-clients-healthy').textContent).toBe('0');
  });

  it('shows the licence state, key usage and days left, linked to settings › licenses, and the HSM', async () => {
    summary = {
      ...summaryFixture,
      license: { state: 'licensed', keys_used: 1234, keys_total: 5000, days_left: 42 },
      hsm: { root_provider: 'pkcs11', token_label: 'ksp-hsm' },
      last_backup: { id: 'b1', scope: 'system', finished_at: '2026-11-20T03:00:00.000Z' },
    };
    saveSignedIn(signedInFixture({ permissions: ['dashboard:read', 'license:read', 'backup:read'] }));
    renderPage('/console/dashboard', '/console/dashboard', <DashboardPage />);
    const figure = await screen.findByTestId('dashboard-license');
    expect(figure.textContent).toBe('Licence: Licensedkeys 1,234 / 5,00042 days left');
    expect(within(figure).getByRole('link').getAttribute('href')).toBe('/console/setting/license');
    // The last backup, linked to settings › backups; the HSM figure has no link without hsm:read.
    expect(screen.queryAllByText('Not configured')).toHaveLength(0);
    const backup = screen.getByTestId('dashboard-backup');
    expect(backup.textContent).toMatch(/^Last backup: 2026-11-\d\d \d\d:\d\d:\d\dSystem$/);
    expect(within(backup).getByRole('link').getAttribute('href')).toBe('/console/setting/backup');
    const hsm = screen.getByTestId('dashboard-hsm');
    expect(hsm.textContent).toBe('HSM: Root key bound to ksp-hsm');
    expect(within(hsm).queryByRole('link')).toBeNull();
  });
});
