import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { http } from '../../api/client';
import { i18n } from '../../i18n/i18n';
import { envelope, fakeAdapter, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { TopBar } from './top-bar';
import { signedInEachTest } from '../../test-session';

const user = signedInFixture().userinfo;
const titleEntry = {
  id: '00000000-0000-4000-8000-000000000001',
  key: 'title',
  value: 'Acme Vault',
  public: true,
  built_in: true,
  read_only: false,
  description: '',
  updated_at: '2026-01-01T00:00:00Z',
};

signedInEachTest();
beforeEach(() => {
  http.defaults.adapter = fakeAdapter((config) =>
    config.url === api.config.list.path ? envelope({ data: [titleEntry], total: 1 }) : envelope([]),
  ).adapter;
});
afterEach(async () => {
  await i18n.changeLanguage('en');
});

/** Renders the top bar at `path` and waits for `expected` as its title. */
async function expectTitle(path: string, expected: string): Promise<void> {
  const view = renderPage(path, '*', <TopBar user={user} compact={false} onLogout={() => undefined} />);
  await waitFor(() => expect(screen.getByTestId('topbar-title').textContent).toBe(expected));
  view.unmount();
}

describe('the top-bar title', () => {
  it('is the configured product title in the main console, and the area title in a sub-console', async () => {
    await expectTitle('/console/dashboard', 'Acme Vault');
    await expectTitle('/cte/clients/main', 'TDE');
    await expectTitle('/rdm/clients/main', 'RDM');
    await expectTitle('/kadp/clients', 'KADP');
    await expectTitle('/kms/key', 'KMS');
    await expectTitle('/credential/cred/index', 'SMS');
    // A path outside every sub-console belongs to the main console.
    await expectTitle('/404', 'Acme Vault');
  });

  it('follows the language', async () => {
    await i18n.changeLanguage('zh');
    await expectTitle('/credential/server/index', '凭据管理');
  });
});
