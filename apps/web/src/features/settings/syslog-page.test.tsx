import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, Code, type SyslogServer } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { resetClient } from '../../api/client';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture, type FakeReply } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import SyslogPage from './syslog-page';
import { answerWith, restoreAdapterAfterEach } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

const PATH = '/console/setting/syslog';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----';

function receiver(overrides: Partial<SyslogServer> = {}): SyslogServer {
  return {
    id: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
    name: 'siem',
    host: '192.0.2.10',
    port: 601,
    protocol: 'tcp',
    format: 'cef',
    streams: ['server', 'alarm'],
    enabled: true,
    ca_cert: null,
    client_cert: null,
    has_client_key: false,
    lag: 0,
    sent: 1234,
    last_sent_at: '2026-01-10T12:00:00Z',
    last_error: null,
    last_error_at: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

interface Server {
  rows?: SyslogServer[];
  create?: (body: Record<string, unknown>) => FakeReply;
  update?: (body: Record<string, unknown>) => FakeReply;
  test?: () => FakeReply;
}

function serve(server: Server = {}) {
  const rows = server.rows ?? [receiver()];
  return answerWith((config: InternalAxiosRequestConfig) => {
    const body = (config.data ? JSON.parse(String(config.data)) : {}) as Record<string, unknown>;
    if (config.url === api.syslog.list.path) return envelope({ data: rows, total: rows.length });
    if (config.url === api.syslog.create.path)
      return server.create ? server.create(body) : envelope({ ...receiver(), ...body });
    if (config.url === api.syslog.update.path)
      return server.update ? server.update(body) : envelope({ ...rows[0], ...body });
    if (config.url === api.syslog.test.path && server.test) return server.test();
    if (config.url === api.syslog.delete.path) return envelope({ deleted: 1 });
    return envelope(null, Code.NOT_FOUND, 'Not served');
  });
}

const sent = (seen: InternalAxiosRequestConfig[], url: string) => seen.filter((config) => config.url === url);
const bodyOf = (config: InternalAxiosRequestConfig | undefined): Record<string, unknown> =>
  JSON.parse(String(config?.data)) as Record<string, unknown>;

function signIn(permissions: string[]) {
  saveSignedIn(signedInFixture({ permissions }));
}

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  signIn(['syslog:read', 'syslog:write']);
});

async function open(name = 'siem') {
  renderPage(PATH, PATH, <SyslogPage />);
  return screen.findByTestId(`syslog-row-${name}`);
}

const form = () => screen.getByTestId('syslog-form');
const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
const port = () => screen.getByTestId<HTMLInputElement>('syslog-port').value;
const chooseProtocol = (label: 'UDP' | 'TCP' | 'TLS') =>
  fireEvent.click(within(form()).getByLabelText(label));

async function openCreate() {
  fireEvent.click(screen.getByTestId('syslog-add'));
  await screen.findByTestId('syslog-form');
  type('syslog-name', 'siem-2');
  type('syslog-host', 'siem.example.com');
}

describe('syslog page', () => {
  it('lists receivers with their address, translated streams, lag and last error', async () => {
    serve({
      rows: [
        receiver(),
        receiver({
          id: '5a6b7c8d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
          name: 'down',
          host: 'logs.example.com',
          port: 6514,
          protocol: 'tls',
          format: 'rfc5424',
          streams: ['client'],
          lag: 42,
          sent: 0,
          last_sent_at: null,
          last_error: 'connect ECONNREFUSED 192.0.2.20:6514',
          last_error_at: '2026-01-10T12:05:00Z',
        }),
      ],
    });
    const row = await open();
    expect(within(row).getByText('192.0.2.10:601')).toBeTruthy();
    expect(within(row).getByText('TCP')).toBeTruthy();
    expect(within(row).getByText('CEF')).toBeTruthy();
    expect(within(row).getByText('Server logs')).toBeTruthy();
    expect(within(row).getByText('Alarms')).toBeTruthy();
    expect(screen.getByTestId('syslog-sent-siem').textContent).toBe('1,234');
    expect(screen.getByTestId('syslog-lag-siem').getAttribute('data-lag')).toBe('0');
    expect(screen.getByTestId('syslog-lag-siem').className).not.toMatch(/orange/);

    const down = screen.getByTestId('syslog-row-down');
    const lag = screen.getByTestId('syslog-lag-down');
    expect(lag.textContent).toBe('42');
    expect(lag.className).toMatch(/orange/);
    expect(within(down).getByText('RFC 5424')).toBeTruthy();
    expect(within(down).getByText('Client logs')).toBeTruthy();
    expect(within(down).getByText('Never')).toBeTruthy();
    const error = screen.getByTestId('syslog-error-down');
    const text = within(error).getByText('connect ECONNREFUSED 192.0.2.20:6514');
    expect(text.closest('.ant-typography-danger')).not.toBeNull();
    expect(within(error).getByText(/^at 2026-01-10 \d\d:05:00$/)).toBeTruthy();
    expect(screen.queryByTestId('syslog-error-siem')).toBeNull();
  });

  it('shows the column titles and streams in Chinese', async () => {
    serve();
    await i18n.changeLanguage('zh');
    try {
      const row = await open();
      expect(within(row).getByText('服务器日志')).toBeTruthy();
      const header = screen.getByTestId('syslog-list').querySelector('thead')!;
      for (const title of ['名称', '协议', '消息格式', '积压', '最近错误']) {
        expect(within(header as HTMLElement).getByText(title)).toBeTruthy();
      }
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('hides add, edit, delete and test without syslog:write, and the switch is read-only', async () => {
    signIn(['syslog:read']);
    serve();
    await open();
    expect(screen.queryByTestId('syslog-add')).toBeNull();
    expect(screen.queryByTestId('syslog-edit-siem')).toBeNull();
    expect(screen.queryByTestId('syslog-delete-siem')).toBeNull();
    expect(screen.queryByTestId('syslog-test-siem')).toBeNull();
    expect(screen.queryByTestId('batch-delete')).toBeNull();
    expect(screen.getByTestId('syslog-enabled-siem')).toHaveProperty('disabled', true);
    expect(screen.getByText(/changing them needs the syslog write permission/)).toBeTruthy();
  });

  it('turns a receiver off from its switch', async () => {
    const seen = serve();
    await open();
    const toggle = screen.getByTestId('syslog-enabled-siem');
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    fireEvent.click(toggle);
    await waitFor(() => expect(sent(seen, api.syslog.update.path)).toHaveLength(1));
    expect(bodyOf(sent(seen, api.syslog.update.path)[0])).toEqual({ id: receiver().id, enabled: false });
  });

  it('tests a receiver and shows the outcome', async () => {
    const seen = serve({ test: () => envelope({ ok: true, detail: 'delivered', ms: 12.4 }) });
    await open();
    fireEvent.click(screen.getByTestId('syslog-test-siem'));
    const result = await screen.findByTestId('syslog-test-result');
    expect(result.getAttribute('data-ok')).toBe('true');
    expect(within(result).getByText('Test event to siem: delivered')).toBeTruthy();
    expect(within(result).getByText('12 ms')).toBeTruthy();
    expect(bodyOf(sent(seen, api.syslog.test.path)[0])).toEqual({ id: receiver().id });
  });

  it('shows a failed test with its detail', async () => {
    serve({ test: () => envelope({ ok: false, detail: 'connect ECONNREFUSED 192.0.2.10:601', ms: 3 }) });
    await open();
    fireEvent.click(screen.getByTestId('syslog-test-siem'));
    const result = await screen.findByTestId('syslog-test-result');
    expect(result.getAttribute('data-ok')).toBe('false');
    expect(within(result).getByText('Test event to siem failed')).toBeTruthy();
    expect(within(result).getByText('connect ECONNREFUSED 192.0.2.10:601 · 3 ms')).toBeTruthy();
  });

  it("sets the protocol's default port unless one was typed, and shows TLS fields for TLS only", async () => {
    serve();
    await open();
    await openCreate();
    expect(port()).toBe('514');
    expect(screen.queryByTestId('syslog-tls-section')).toBeNull();
    chooseProtocol('TCP');
    await waitFor(() => expect(port()).toBe('601'));
    chooseProtocol('TLS');
    await waitFor(() => expect(port()).toBe('6514'));
    expect(await screen.findByTestId('syslog-tls-section')).toBeTruthy();
    expect(screen.getByTestId('syslog-ca-cert')).toBeTruthy();
    expect(screen.getByTestId('syslog-client-cert')).toBeTruthy();
    expect(screen.getByTestId('syslog-client-key')).toBeTruthy();
    type('syslog-port', '1514');
    chooseProtocol('UDP');
    await waitFor(() => expect(screen.queryByTestId('syslog-tls-section')).toBeNull());
    expect(port()).toBe('1514');
  });

  it('refuses a client certificate without its key before sending anything', async () => {
    const seen = serve();
    await open();
    await openCreate();
    chooseProtocol('TLS');
    await screen.findByTestId('syslog-tls-section');
    type('syslog-client-cert', CERT);
    fireEvent.click(screen.getByTestId('syslog-save'));
    expect(
      await screen.findByText(
        'A client certificate needs its private key: paste the key, or leave both empty',
      ),
    ).toBeTruthy();
    expect(sent(seen, api.syslog.create.path)).toHaveLength(0);

    await i18n.changeLanguage('zh');
    try {
      fireEvent.click(screen.getByTestId('syslog-save'));
      expect(await screen.findByText('客户端证书须有其私钥：请粘贴私钥，或两者都留空')).toBeTruthy();
    } finally {
      await i18n.changeLanguage('en');
    }
    expect(sent(seen, api.syslog.create.path)).toHaveLength(0);
  });

  it('creates a TLS receiver with the body the contract wants', async () => {
    const seen = serve();
    await open();
    await openCreate();
    chooseProtocol('TLS');
    await screen.findByTestId('syslog-tls-section');
    fireEvent.click(within(form()).getByLabelText('Alarms'));
    type('syslog-ca-cert', CERT);
    type('syslog-client-cert', CERT);
    type('syslog-client-key', KEY);
    fireEvent.click(screen.getByTestId('syslog-save'));
    await waitFor(() => expect(sent(seen, api.syslog.create.path)).toHaveLength(1));
    const body = bodyOf(sent(seen, api.syslog.create.path)[0]);
    expect(body).toEqual({
      name: 'siem-2',
      host: 'siem.example.com',
      protocol: 'tls',
      port: 6514,
      format: 'rfc5424',
      streams: ['server', 'alarm'],
      enabled: true,
      ca_cert: CERT,
      client_cert: CERT,
      client_key: KEY,
    });
    expect(api.syslog.create.body?.safeParse(body).success).toBe(true);
    await waitFor(() => expect(screen.queryByTestId('syslog-form')).toBeNull());
  });

  it('edits without the key unless one is typed, and can remove the client pair', async () => {
    const stored = receiver({
      protocol: 'tls',
      port: 6514,
      ca_cert: CERT,
      client_cert: CERT,
      has_client_key: true,
    });
    const seen = serve({ rows: [stored] });
    await open();
    fireEvent.click(screen.getByTestId('syslog-edit-siem'));
    await screen.findByTestId('syslog-form');
    expect(screen.getByTestId('syslog-key-stored').textContent).toMatch(/A key is stored/);
    expect(screen.getByTestId<HTMLTextAreaElement>('syslog-client-key').value).toBe('');
    expect(screen.getByTestId<HTMLTextAreaElement>('syslog-client-cert').value).toBe(CERT);
    type('syslog-host', '192.0.2.11');
    fireEvent.click(screen.getByTestId('syslog-save'));
    await waitFor(() => expect(sent(seen, api.syslog.update.path)).toHaveLength(1));
    const body = bodyOf(sent(seen, api.syslog.update.path)[0]);
    expect(body).toMatchObject({ id: stored.id, host: '192.0.2.11', protocol: 'tls', port: 6514 });
    expect(body).not.toHaveProperty('client_key');
    expect(body).not.toHaveProperty('client_cert');
    await waitFor(() => expect(screen.queryByTestId('syslog-form')).toBeNull());

    fireEvent.click(screen.getByTestId('syslog-edit-siem'));
    await screen.findByTestId('syslog-form');
    fireEvent.click(screen.getByTestId('syslog-remove-client'));
    await waitFor(() => expect(screen.queryByTestId('syslog-client-key')).toBeNull());
    fireEvent.click(screen.getByTestId('syslog-save'));
    await waitFor(() => expect(sent(seen, api.syslog.update.path)).toHaveLength(2));
    expect(bodyOf(sent(seen, api.syslog.update.path)[1])).toMatchObject({ client_cert: '', client_key: '' });
  });

  it("shows the server's refusal in the form, beside the field it names", async () => {
    const refusal = 'host: nowhere.invalid does not resolve (ENOTFOUND)';
    serve({ create: () => envelope(null, Code.INVALID, refusal) });
    await open();
    await openCreate();
    type('syslog-host', 'nowhere.invalid');
    fireEvent.click(screen.getByTestId('syslog-save'));
    const error = await screen.findByTestId('syslog-form-error');
    expect(within(error).getByText(refusal)).toBeTruthy();
    const hostItem = screen.getByTestId('syslog-host').closest('.ant-form-item')!;
    await waitFor(() => expect(within(hostItem as HTMLElement).getByText(refusal)).toBeTruthy());
    expect(screen.getByTestId('syslog-host')).toHaveProperty('value', 'nowhere.invalid');
  });
});
