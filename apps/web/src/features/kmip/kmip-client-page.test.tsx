import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, type KmipClientRow } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { http, resetClient } from '../../api/client';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, fakeAdapter, signedInFixture } from '../../test-fixtures';
import { captureDownloads } from '../../test-downloads';
import { renderPage } from '../../test-render';
import KmipClientPage from './kmip-client-page';
import { choose } from '../../test-select';

const originalAdapter = http.defaults.adapter;
const PATH = '/console/kmip';
const ROLE_ID = '0190d5a4-0000-7000-8000-0000000000a1';
const SERVER_PEM = '-----BEGIN CERTIFICATE-----\nU0VSVkVS\n-----END CERTIFICATE-----\n';
const CLIENT_PEM = '-----BEGIN CERTIFICATE-----\nQ0xJRU5U\n-----END CERTIFICATE-----\n';
const CHAIN_PEM = '-----BEGIN CERTIFICATE-----\nQ0hBSU4=\n-----END CERTIFICATE-----\n';
const CSR = '-----BEGIN CERTIFICATE REQUEST-----\nQ1NS\n-----END CERTIFICATE REQUEST-----';

const client = (name: string, n: number, over: Partial<KmipClientRow> = {}): KmipClientRow => ({
  id: `0190d5a4-0000-7000-8000-0000000000c${n}`,
  name,
  role_id: ROLE_ID,
  role_name: 'Storage arrays',
  state: 'active',
  last_seen_at: '2026-01-02T03:04:05.000Z',
  registered_at: '2026-01-01T00:00:00.000Z',
  certificate: {
    id: `0190d5a4-0000-7000-8000-0000000000d${n}`,
    serial: `7f00aa${n}`,
    not_before: '2026-01-01T00:00:00.000Z',
    not_after: '2099-01-01T00:00:00.000Z',
    ca_name: 'Root CA',
    revoked: false,
  },
  ...over,
});

const rows = [
  client('array-01', 1),
  client('backup-02', 2, { state: 'disabled', last_seen_at: null }),
  client('old-03', 3, { state: 'revoked', role_id: null, role_name: '' }),
];

const role = {
  id: ROLE_ID,
  name: 'Storage arrays',
  description: '',
  type: 'custom',
  type_description: '',
  permissions: ['key:read', 'key:write'],
  users: [],
  created_at: '2026-01-01T00:00:00Z',
};

function serve() {
  const fake = fakeAdapter((config: InternalAxiosRequestConfig) => {
    const body = typeof config.data === 'string' ? (JSON.parse(config.data) as Record<string, unknown>) : {};
    switch (config.url) {
      case api.kmip.status.path:
        return envelope({
          listening: true,
          port: 5696,
          versions: ['2.0', '1.4', '1.3', '1.2', '1.1', '1.0'],
          server_certificate_pem: SERVER_PEM,
          limits: {
            max_message_bytes: 1_048_576,
            idle_seconds: 120,
            connections_per_client: 64,
            connections_total: 1024,
          },
        });
      case api.kmip.list.path:
        return envelope({ data: rows, total: rows.length });
      case api.role.list.path:
        return envelope({ data: [role], total: 1 });
      case api.kmip.create.path:
        return envelope({
          client: client(String(body.name), 4),
          certificate_pem: CLIENT_PEM,
          chain_pem: CHAIN_PEM,
        });
      case api.kmip.update.path:
        return envelope({ ...rows[0], state: body.enabled === false ? 'disabled' : 'active' });
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

const bodiesOf = (seen: InternalAxiosRequestConfig[], path: string) =>
  seen.filter((c) => c.url === path).map((c) => JSON.parse(String(c.data)) as unknown);

beforeEach(() => {
  resetClient();
  saveSignedIn(signedInFixture({ permissions: ['kmip:read', 'kmip:write', 'role:read'] }));
});
afterEach(async () => {
  http.defaults.adapter = originalAdapter;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await act(() => i18n.changeLanguage('en'));
});

describe.each(['en', 'zh'] as const)('Keys › KMIP clients (%s)', (lang) => {
  const en = lang === 'en';
  beforeEach(async () => {
    await act(() => i18n.changeLanguage(lang));
  });

  it('shows the listener and lists the clients with their role, state, certificate and last use', async () => {
    const seen = serve();
    renderPage(PATH, PATH, <KmipClientPage />);
    const state = await screen.findByTestId('kmip-listener-state');
    expect(state.textContent).toBe(en ? 'Listening' : '监听中');
    expect(screen.getByTestId('kmip-listener-port').textContent).toBe('5696');
    expect(screen.getByTestId('kmip-listener-versions').textContent).toBe('2.01.41.31.21.11.0');
    const listener = screen.getByTestId('kmip-listener');
    expect(listener.textContent).toContain('1 MiB');
    expect(listener.textContent).toContain(en ? '120 s' : '120 秒');
    expect(listener.textContent).toContain('1,024');
    expect(screen.getByTestId('kmip-listener-cert-download')).toBeTruthy();

    const active = await screen.findByTestId('kmip-row-array-01');
    expect(active.textContent).toContain('Storage arrays');
    expect(active.textContent).toContain('7f00aa1');
    expect(active.textContent).toContain('2099-01-01');
    expect(screen.getByTestId('kmip-state-array-01').textContent).toBe(en ? 'Active' : '启用');
    expect(screen.getByTestId('kmip-state-backup-02').textContent).toBe(en ? 'Disabled' : '已禁用');
    expect(screen.getByTestId('kmip-state-old-03').textContent).toBe(en ? 'Revoked' : '已吊销');
    expect(screen.getByTestId('kmip-row-backup-02').textContent).toContain(en ? 'Never' : '从未');
    expect(screen.getByTestId('kmip-row-old-03').textContent).toContain(en ? 'None' : '无');
    // What each state allows: a revoked client can only be deleted.
    expect(screen.getByTestId('kmip-disable-array-01')).toBeTruthy();
    expect(screen.queryByTestId('kmip-enable-array-01')).toBeNull();
    expect(screen.getByTestId('kmip-enable-backup-02')).toBeTruthy();
    expect(screen.queryByTestId('kmip-role-old-03')).toBeNull();
    expect(screen.queryByTestId('kmip-renew-old-03')).toBeNull();
    expect(screen.getByTestId('kmip-delete-old-03')).toBeTruthy();

    // The name filter goes to the server.
    fireEvent.change(screen.getByTestId('kmip-filter-name'), { target: { value: 'array' } });
    fireEvent.click(screen.getByTestId('kmip-search'));
    await waitFor(() =>
      expect(
        seen.some(
          (c) =>
            c.url === api.kmip.list.path && (c.params as { name?: string } | undefined)?.name === 'array',
        ),
      ).toBe(true),
    );
  });

  it('creates a client from an uploaded CSR and shows the issued certificate and chain', async () => {
    const seen = serve();
    const saved = captureDownloads();
    renderPage(PATH, PATH, <KmipClientPage />);
    fireEvent.click(await screen.findByTestId('kmip-add'));
    const note = await screen.findByTestId('kmip-create-key-note');
    expect(note.textContent).toContain(en ? 'The private key never reaches KSP' : '私钥不会传到 KSP');
    expect(screen.getByTestId<HTMLInputElement>('kmip-create-validity').value).toBe('365');

    // Nothing filled in: the contract's rules speak, nothing is sent.
    fireEvent.click(screen.getByTestId('kmip-create-ok'));
    expect(await screen.findByText(en ? 'Please choose a role' : '请选择角色')).toBeTruthy();
    expect(bodiesOf(seen, api.kmip.create.path)).toEqual([]);

    fireEvent.change(screen.getByTestId('kmip-create-name'), { target: { value: ' vault-07 ' } });
    await choose('kmip-create-role', 'Storage arrays');
    fireEvent.change(screen.getByTestId('kmip-create-validity'), { target: { value: '90' } });
    const file = new File([`${CSR}\n`], 'vault-07.csr');
    fireEvent.change(screen.getByTestId('kmip-create-csr-file'), { target: { files: [file] } });
    await waitFor(() =>
      expect(screen.getByTestId<HTMLTextAreaElement>('kmip-create-csr').value).toContain(
        'BEGIN CERTIFICATE REQUEST',
      ),
    );
    fireEvent.click(screen.getByTestId('kmip-create-ok'));

    await waitFor(() =>
      expect(bodiesOf(seen, api.kmip.create.path)).toEqual([
        { name: 'vault-07', role_id: ROLE_ID, validity_days: 90, csr: CSR },
      ]),
    );
    const issued = await screen.findByTestId('kmip-issued');
    expect(within(issued).getByTestId<HTMLTextAreaElement>('kmip-issued-certificate').value).toBe(CLIENT_PEM);
    expect(within(issued).getByTestId<HTMLTextAreaElement>('kmip-issued-chain').value).toBe(CHAIN_PEM);
    expect(
      screen.getByText(en ? 'KMIP client vault-07 created' : 'KMIP 客户端 vault-07 已创建'),
    ).toBeTruthy();
    expect(within(issued).getByTestId('kmip-issued-certificate-copy')).toBeTruthy();
    fireEvent.click(screen.getByTestId('kmip-issued-both-download'));
    expect(saved.map((s) => s.name)).toEqual(['vault-07-fullchain.pem']);
    expect(await saved[0]!.blob.text()).toBe(CLIENT_PEM + CHAIN_PEM);
    fireEvent.click(within(issued).getByTestId('kmip-issued-certificate-download'));
    expect(saved.map((s) => s.name)).toEqual(['vault-07-fullchain.pem', 'vault-07.pem']);
  });

  it('disables an active client after a confirmation', async () => {
    const seen = serve();
    renderPage(PATH, PATH, <KmipClientPage />);
    fireEvent.click(await screen.findByTestId('kmip-disable-array-01'));
    expect(
      await screen.findAllByText(en ? 'Disable KMIP client array-01?' : '禁用 KMIP 客户端 array-01？'),
    ).not.toHaveLength(0);
    expect(bodiesOf(seen, api.kmip.update.path)).toEqual([]);
    fireEvent.click(await screen.findByTestId('kmip-confirm-disable'));
    await waitFor(() =>
      expect(bodiesOf(seen, api.kmip.update.path)).toEqual([{ id: rows[0]!.id, enabled: false }]),
    );
    expect(
      await screen.findByText(en ? 'KMIP client array-01 disabled' : 'KMIP 客户端 array-01 已禁用'),
    ).toBeTruthy();
  });
});

describe('Keys › KMIP clients without kmip:write', () => {
  it('lists the clients and the listener, and offers nothing that changes them', async () => {
    saveSignedIn(signedInFixture({ permissions: ['kmip:read'] }));
    serve();
    renderPage(PATH, PATH, <KmipClientPage />);
    await screen.findByTestId('kmip-row-array-01');
    expect(screen.getByTestId('kmip-listener-state').textContent).toBe('Listening');
    expect(screen.queryByTestId('kmip-add')).toBeNull();
    for (const name of ['array-01', 'backup-02', 'old-03']) {
      for (const action of ['role', 'disable', 'enable', 'renew', 'delete'])
        expect(screen.queryByTestId(`kmip-${action}-${name}`), `${action} ${name}`).toBeNull();
    }
    expect(screen.queryByText('Actions')).toBeNull();
  });
});
