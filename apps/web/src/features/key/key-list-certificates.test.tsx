import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { changeLanguage } from '../../i18n/i18n';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import KeyListPage from './key-list-page';
import { keyRow } from './key-test-fixtures';
import { answerWith, signedInEachTest } from '../../test-session';

const CERT_ID = '11111111-2222-4333-8444-555555555555';
const CA_ID = '66666666-7777-4888-9999-aaaaaaaaaaaa';

const own = { ...keyRow({ name: 'billing' }), belongs_to: null };
const certKey = {
  ...keyRow({ id: 'a1a1a1a1-0000-4000-8000-000000000001', name: 'cert-01a2253d', object_type: 'private' }),
  belongs_to: { kind: 'certificate' as const, id: CERT_ID, name: 'web' },
};
const caKey = {
  ...keyRow({ id: 'a1a1a1a1-0000-4000-8000-000000000002', name: 'ca-7f00.pub', object_type: 'public' }),
  belongs_to: { kind: 'ca' as const, id: CA_ID, name: 'Root' },
};

/** A server that leaves certificate keys out unless `certificate_keys` says otherwise. */
function serve() {
  return answerWith((config) => {
    if (config.url !== api.key.list.path) return envelope(null);
    const mode = (config.params as { certificate_keys?: string }).certificate_keys ?? 'hide';
    const data = mode === 'hide' ? [own] : mode === 'only' ? [certKey, caKey] : [own, certKey, caKey];
    return envelope({ data, total: data.length, total_capped: false });
  });
}

signedInEachTest({ permissions: ['key:read'] });
afterEach(async () => {
  await changeLanguage('en');
});

const lastList = (seen: ReturnType<typeof serve>) =>
  seen.filter((config) => config.url === api.key.list.path).at(-1)?.params as Record<string, unknown>;

describe('certificate keys in the key list', () => {
  it('hides them by default; the filter shows them, each linking to its certificate or CA', async () => {
    const seen = serve();
    const { router } = renderPage('/console/key', '/console/key', <KeyListPage />, {
      '/console/cert/local': 'certificates page',
    });
    await screen.findByTestId('key-row-billing');
    expect(lastList(seen).certificate_keys).toBeUndefined();
    expect(screen.queryByTestId('key-row-cert-01a2253d')).toBeNull();
    const select = screen.getByTestId('key-filter-certificate_keys');
    fireEvent.mouseDown(within(select.closest('.ant-select') ?? select).getByRole('combobox'));
    const option = await waitFor(() => {
      const found = [...document.querySelectorAll('.ant-select-item-option')].find(
        (item) => item.textContent === 'Show certificate keys',
      );
      if (!found) throw new Error('no option');
      return found;
    });
    expect([...document.querySelectorAll('.ant-select-item-option')].map((item) => item.textContent)).toEqual(
      ['Hide certificate keys', 'Show certificate keys', 'Only certificate keys'],
    );
    fireEvent.click(option);
    const search = screen.queryByTestId('key-search');
    if (search) fireEvent.click(search);

    const link = await screen.findByTestId('key-belongs-cert-01a2253d');
    expect(lastList(seen).certificate_keys).toBe('show');
    expect(link.textContent).toBe('Certificate: web');
    expect(link.getAttribute('href')).toBe(`/console/cert/local?cert=${CERT_ID}`);
    const ca = screen.getByTestId('key-belongs-ca-7f00.pub');
    expect(ca.textContent).toBe('CA: Root');
    expect(ca.getAttribute('href')).toBe(`/console/cert/local?tab=cas&ca=${CA_ID}`);
    expect(within(screen.getByTestId('key-row-billing')).queryByText(/Certificate:|CA:/)).toBeNull();

    fireEvent.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/console/cert/local'));
    expect(router.state.location.search).toBe(`?cert=${CERT_ID}`);
  });

  it('says it in Chinese', async () => {
    await changeLanguage('zh');
    serve();
    renderPage('/console/key?certificate_keys=only', '/console/key', <KeyListPage />);
    expect((await screen.findByTestId('key-belongs-cert-01a2253d')).textContent).toBe('证书：web');
    expect(screen.getByTestId('key-belongs-ca-7f00.pub').textContent).toBe('CA：Root');
    expect(screen.queryByTestId('key-row-billing')).toBeNull();
    expect(within(screen.getByTestId('key-list')).getByText('仅证书密钥')).toBeTruthy();
  });
});
