import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, type DbClientDetail, type DbClientRow } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { answerWith, restoreAdapterAfterEach } from '../../test-session';
import DatabaseClientPage from './database-client-page';

const PATH = '/cte/databases/main';
const TOKEN = 'kspdb_Zm9yLXRoZS10ZXN0LW9ubHktbm90LWEtcmVhbC10b2tlbg';
const SERVER_PEM = '-----BEGIN CERTIFICATE-----\nU0VSVkVS\n-----END CERTIFICATE-----\n';
const KEY_A = '0190d5a4-0000-7000-8000-00000000a001';
const KEY_B = '0190d5a4-0000-7000-8000-00000000a002';

const client = (name: string, n: number, over: Partial<DbClientRow> = {}): DbClientRow => ({
  id: `0190d5a4-0000-7000-8000-0000000000c${n}`,
  name,
  description: `${name} on db-${n}`,
  enabled: true,
  ip_whitelist: [],
  token_hint: `kspdb_Ab${n}…`,
  token_issued_at: '2026-01-01T00:00:00.000Z',
  keys: 2,
  last_read_at: '2026-01-02T03:04:05.000Z',
  last_read_ip: '10.0.0.7',
  created_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const rows = [
  client('orders-db', 1),
  client('archive-db', 2, {
    enabled: false,
    token_hint: null,
    keys: 0,
    last_read_at: null,
    last_read_ip: '',
  }),
];

const detailOf = (row: DbClientRow): DbClientDetail => ({
  ...row,
  grants: [
    {
      db_key_id: 1,
      key_id: KEY_A,
      key_name: 'orders-master',
      key_state: 'active',
      current_version: 3,
      reads: 1234,
      last_read_at: '2026-01-02T03:04:05.000Z',
      last_version: 3,
      granted_at: '2026-01-01T00:00:00.000Z',
    },
  ],
});

function serve({ tls = false }: { tls?: boolean } = {}) {
  return answerWith((config: InternalAxiosRequestConfig) => {
    const body = typeof config.data === 'string' ? (JSON.parse(config.data) as Record<string, unknown>) : {};
    switch (config.url) {
      case api.tdeDatabase.endpoint.path:
        return envelope({
          path: '/v1/tde',
          mount: 'tde',
          tls,
          server_certificate_pem: tls ? SERVER_PEM : '',
        });
      case api.tdeDatabase.list.path:
        return envelope({ data: rows, total: rows.length });
      case api.tdeDatabase.detail.path:
        return envelope(detailOf(rows[0]!));
      case api.tdeDatabase.create.path:
        return envelope({
          client: client(String(body.name), 3, { keys: 0, last_read_at: null }),
          token: TOKEN,
        });
      case api.tdeDatabase.revokeToken.path:
        return envelope({ ...rows[0], token_hint: null });
      case api.tdeDatabase.grant.path:
        return envelope(detailOf(rows[0]!));
      case api.tdeDatabase.keyOptions.path:
        return envelope([
          { id: KEY_A, name: 'orders-master', current_version: 3 },
          { id: KEY_B, name: 'orders-next', current_version: 1 },
        ]);
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}

const bodiesOf = (seen: InternalAxiosRequestConfig[], path: string) =>
  seen.filter((c) => c.url === path).map((c) => JSON.parse(String(c.data)) as unknown);

const signIn = (permissions: string[]) => saveSignedIn(signedInFixture({ permissions }));

restoreAdapterAfterEach();
beforeEach(() => signIn(['cte:read', 'cte:write', 'key:read']));
afterEach(async () => {
  await act(() => i18n.changeLanguage('en'));
});

/** Opens the detail drawer of orders-db and waits for its grants. */
async function openOrders() {
  renderPage(PATH, PATH, <DatabaseClientPage />);
  fireEvent.click(await screen.findByTestId('db-details-orders-db'));
  return screen.findByTestId('db-grant-1');
}

describe('TDE › Database clients', () => {
  it('shows the key endpoint and lists the clients with their state, token, keys and last read', async () => {
    const seen = serve();
    renderPage(PATH, PATH, <DatabaseClientPage />);
    expect((await screen.findByTestId('db-endpoint-url')).textContent).toBe(
      `${window.location.origin}/v1/tde`,
    );
    expect(screen.getByTestId('db-endpoint-mount').textContent).toBe('tde');
    expect(screen.getByTestId('db-endpoint-no-tls').textContent).toContain('plain HTTP');
    expect(screen.getByTestId('db-endpoint').textContent).toContain('docs/tde-database.md');
    expect(screen.queryByTestId('db-endpoint-cert-download')).toBeNull();

    const orders = await screen.findByTestId('db-row-orders-db');
    expect(orders.textContent).toContain('orders-db on db-1');
    expect(orders.textContent).toContain('10.0.0.7');
    expect(screen.getByTestId('db-state-orders-db').textContent).toBe('Enabled');
    expect(screen.getByTestId('db-token-orders-db').textContent).toBe('kspdb_Ab1…');
    expect(screen.getByTestId('db-state-archive-db').textContent).toBe('Disabled');
    expect(screen.getByTestId('db-token-archive-db').textContent).toBe('No token');
    expect(screen.getByTestId('db-row-archive-db').textContent).toContain('Never');
    // What each row allows: no token to revoke, enable rather than disable.
    expect(screen.getByTestId('db-revoke-orders-db')).toBeTruthy();
    expect(screen.queryByTestId('db-revoke-archive-db')).toBeNull();
    expect(screen.getByTestId('db-enable-archive-db')).toBeTruthy();
    expect(screen.queryByTestId('db-disable-archive-db')).toBeNull();

    fireEvent.change(screen.getByTestId('db-filter-name'), { target: { value: 'orders' } });
    fireEvent.click(screen.getByTestId('db-search'));
    await waitFor(() =>
      expect(
        seen.some(
          (c) =>
            c.url === api.tdeDatabase.list.path &&
            (c.params as { name?: string } | undefined)?.name === 'orders',
        ),
      ).toBe(true),
    );
  });

  it('creates a client and shows its token once: closing the dialog forgets it', async () => {
    const seen = serve({ tls: true });
    renderPage(PATH, PATH, <DatabaseClientPage />);
    expect(await screen.findByTestId('db-endpoint-cert-download')).toBeTruthy();
    expect(screen.queryByTestId('db-endpoint-no-tls')).toBeNull();

    fireEvent.click(await screen.findByTestId('db-add'));
    fireEvent.change(await screen.findByTestId('db-create-name'), { target: { value: ' sales-db ' } });
    fireEvent.change(screen.getByTestId('db-create-description'), { target: { value: 'MariaDB 11' } });
    fireEvent.change(screen.getByTestId('db-create-ip'), { target: { value: '10.0.0.0/8\nbad-host' } });
    fireEvent.click(screen.getByTestId('db-create-ok'));
    expect(await screen.findByText('Not an IP address or CIDR range: bad-host')).toBeTruthy();
    expect(bodiesOf(seen, api.tdeDatabase.create.path)).toEqual([]);

    fireEvent.change(screen.getByTestId('db-create-ip'), { target: { value: '10.0.0.0/8' } });
    fireEvent.click(screen.getByTestId('db-create-ok'));
    await waitFor(() =>
      expect(bodiesOf(seen, api.tdeDatabase.create.path)).toEqual([
        { name: 'sales-db', description: 'MariaDB 11', ip_whitelist: ['10.0.0.0/8'] },
      ]),
    );
    const shown = await screen.findByTestId('db-token');
    expect(within(shown).getByTestId('db-token-value').textContent).toBe(TOKEN);
    expect(shown.textContent).toContain('will not show it again');
    expect(within(shown).getByTestId('db-token-copy')).toBeTruthy();
    expect(screen.getByText('Database client sales-db created')).toBeTruthy();

    fireEvent.click(screen.getByTestId('db-token-done'));
    await waitFor(() => expect(screen.queryByText(TOKEN)).toBeNull());
  });

  it('refuses a key id that is not a whole number from 1 to 4294967295, and sends nothing', async () => {
    const seen = serve();
    await openOrders();
    const rule = 'The key id must be a whole number from 1 to 4294967295';
    fireEvent.change(screen.getByTestId('db-grant-id'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByTestId('db-grant-ok'));
    expect(await screen.findByText(rule)).toBeTruthy();
    expect(await screen.findByText('Choose a key')).toBeTruthy();

    // Each refusal follows the value typed: a good one clears the message, a bad one brings it back.
    const type = (value: string) =>
      fireEvent.change(screen.getByTestId('db-grant-id'), { target: { value } });
    for (const value of ['0', '1.5', '4294967296']) {
      type('4294967295');
      await waitFor(() => expect(screen.queryByText(rule)).toBeNull());
      type(value);
      expect(await screen.findByText(rule)).toBeTruthy();
    }
    expect(bodiesOf(seen, api.tdeDatabase.grant.path)).toEqual([]);
  });

  it('grants a key picked from the grantable keys under the key id typed', async () => {
    const seen = serve();
    const grant = await openOrders();
    // The grant lists the key by name, linked to its detail page, with its reads.
    expect(within(grant).getByRole('link', { name: 'orders-master' }).getAttribute('href')).toBe(
      `/console/key/detail/${KEY_A}`,
    );
    expect(grant.textContent).toContain('1,234');
    expect(grant.textContent).toContain('In use');

    fireEvent.change(screen.getByTestId('db-grant-id'), { target: { value: '7' } });
    const select = screen.getByTestId('db-grant-key');
    fireEvent.mouseDown(within(select.closest('.ant-select') ?? select).getByRole('combobox'));
    fireEvent.click((await screen.findAllByTitle('orders-next')).at(-1)!);
    fireEvent.click(screen.getByTestId('db-grant-ok'));
    await waitFor(() =>
      expect(bodiesOf(seen, api.tdeDatabase.grant.path)).toEqual([
        { id: rows[0]!.id, db_key_id: 7, key_id: KEY_B },
      ]),
    );
    expect(await screen.findByText('Key id 7 granted')).toBeTruthy();
  });

  it('revokes a token only after a confirmation', async () => {
    const seen = serve();
    renderPage(PATH, PATH, <DatabaseClientPage />);
    fireEvent.click(await screen.findByTestId('db-revoke-orders-db'));
    expect(await screen.findAllByText('Revoke the token of orders-db?')).not.toHaveLength(0);
    expect(bodiesOf(seen, api.tdeDatabase.revokeToken.path)).toEqual([]);
    fireEvent.click(screen.getByTestId('db-confirm-revoke'));
    await waitFor(() =>
      expect(bodiesOf(seen, api.tdeDatabase.revokeToken.path)).toEqual([{ id: rows[0]!.id }]),
    );
    expect(await screen.findByText('The token of orders-db is revoked')).toBeTruthy();
  });

  it('speaks Chinese in zh', async () => {
    await act(() => i18n.changeLanguage('zh'));
    serve();
    renderPage(PATH, PATH, <DatabaseClientPage />);
    expect((await screen.findByTestId('db-endpoint-no-tls')).textContent).toContain('明文 HTTP');
    expect(screen.getByTestId('db-endpoint').textContent).toContain('密钥服务端点');
    await screen.findByTestId('db-row-orders-db');
    expect(screen.getByTestId('db-state-orders-db').textContent).toBe('已启用');
    expect(screen.getByTestId('db-token-archive-db').textContent).toBe('无令牌');
    expect(screen.getByTestId('db-revoke-orders-db').textContent).toBe('吊销令牌');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toContain('最近读取');
  });

  it('offers nothing that changes a client without cte:write', async () => {
    signIn(['cte:read', 'key:read']);
    serve();
    await openOrders();
    expect(screen.queryByTestId('db-add')).toBeNull();
    for (const action of ['edit', 'disable', 'enable', 'regenerate', 'revoke', 'delete'])
      for (const row of rows) expect(screen.queryByTestId(`db-${action}-${row.name}`)).toBeNull();
    expect(screen.queryByTestId('db-grant-form')).toBeNull();
    expect(screen.queryByTestId('db-ungrant-1')).toBeNull();
  });
});
