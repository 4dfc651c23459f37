import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, type ClientRow } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { clientRowFixture, envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import ClientDetailPage from './client-detail-page';
import ClientListPage from './client-list-page';
import { answerWith, inLanguageEachTest, signedInEachTest } from '../../test-session';

const LIST = '/kadp/clients';

const row: ClientRow = clientRowFixture({
  name: 'billing-app',
  type: 'kadp',
  host: 'billing.example',
  status: 'warning',
  token_name: 'apps',
});

function serve() {
  return answerWith((config: InternalAxiosRequestConfig) => {
    switch (config.url) {
      case api.client.list.path:
        return envelope({ data: [row], total: 1, counts: { total: 7, errors: 2, warnings: 1, healthy: 4 } });
      case api.client.detail.path:
        return envelope(row);
      case api.kadpOps.operations.path:
        return envelope({
          data: [
            {
              id: '0190d5a4-0000-7000-8000-0000000000e2',
              at: '2026-01-02T00:00:01.000Z',
              operation: 'decrypt',
              key_id: '0190d5a4-0000-7000-8000-0000000000f1',
              key_name: 'billing-key',
              result: 'failure',
              reason: 'crypto.decryptFailed',
            },
            {
              id: '0190d5a4-0000-7000-8000-0000000000e1',
              at: '2026-01-02T00:00:00.000Z',
              operation: 'encrypt',
              key_id: '0190d5a4-0000-7000-8000-0000000000f1',
              key_name: 'billing-key',
              result: 'success',
              reason: '',
            },
          ],
          total: 42,
        });
      case api.client.revoke.path:
        return envelope({ ...row, status: 'revoked', certificate: { ...row.certificate, revoked: true } });
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}

signedInEachTest({ permissions: ['kadp:read', 'kadp:write'] });

describe.each(['en', 'zh'] as const)('KADP client pages (%s)', (lang) => {
  inLanguageEachTest(lang);

  it('shows the status bar counts, filters by a clicked count, and lists the client', async () => {
    const seen = serve();
    const { router } = renderPage(LIST, LIST, <ClientListPage />);
    await screen.findByTestId('client-open-billing-app');
    const bar = screen.getByTestId('client-status-bar');
    await waitFor(() => expect(within(bar).getByTestId('client-count-errors').textContent).toContain('2'));
    expect(within(bar).getByTestId('client-count-total').textContent).toContain('7');
    expect(within(bar).getByTestId('client-count-healthy').textContent).toContain(
      lang === 'en' ? 'Healthy' : '健康',
    );
    expect(screen.getByTestId('client-row-billing-app').textContent).toContain(
      lang === 'en' ? 'Warning' : '警告',
    );
    expect(screen.getByTestId('client-row-billing-app').textContent).toContain('billing.example');
    fireEvent.click(within(bar).getByTestId('client-count-errors'));
    await waitFor(() => expect(router.state.location.search).toContain('status=error'));
    await waitFor(() =>
      expect(
        seen.some(
          (c) =>
            c.url === api.client.list.path &&
            (c.params as { status?: string } | undefined)?.status === 'error',
        ),
      ).toBe(true),
    );
    fireEvent.click(within(bar).getByTestId('client-count-total'));
    await waitFor(() => expect(router.state.location.search).not.toContain('status='));
  });

  it('shows identity and certificate validity on the detail page, and revokes after a confirmation', async () => {
    const seen = serve();
    const path = `/kadp/clients/clients-details/${row.id}`;
    renderPage(path, '/kadp/clients/clients-details/:id', <ClientDetailPage />);
    const identity = await screen.findByTestId('client-identity');
    expect(identity.textContent).toContain('aa:bb:cc:dd:ee:ff');
    expect(identity.textContent).toContain(lang === 'en' ? 'Default' : '默认');
    expect(screen.getByTestId('client-certificate').textContent).toContain('Root CA');
    // Its recent operations (time, operation, key, result) and their count.
    await waitFor(() =>
      expect(screen.getByTestId('client-operations-count').textContent).toContain(
        lang === 'en' ? 'Operations: 42' : '操作次数：42',
      ),
    );
    const failed = await screen.findByTestId('client-op-decrypt-failure');
    expect(failed.textContent).toContain('billing-key');
    expect(failed.textContent).toContain(lang === 'en' ? 'Decrypt' : '解密');
    expect(screen.getByTestId('client-op-encrypt-success').textContent).toContain(
      lang === 'en' ? 'Success' : '成功',
    );
    fireEvent.click(screen.getByTestId('client-revoke'));
    fireEvent.click(await screen.findByTestId('client-confirm-revoke'));
    await waitFor(() => expect(seen.filter((c) => c.url === api.client.revoke.path)).toHaveLength(1));
    expect(JSON.parse(String(seen.find((c) => c.url === api.client.revoke.path)!.data))).toEqual({
      id: row.id,
    });
  });
});
