import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, type ClientLogRecord } from '@ksp/contracts';
import { http } from '../../api/client';
import { changeLanguage } from '../../i18n/i18n';
import { envelope, fakeAdapter } from '../../test-fixtures';
import { captureDownloads } from '../../test-downloads';
import { renderPage } from '../../test-render';
import LogPage from '../../app/log-tabs-page';
import { signedInEachTest } from '../../test-session';
import { choose } from '../../test-select';

function record(overrides: Partial<ClientLogRecord> = {}): ClientLogRecord {
  return {
    id: '0195f0a0-0000-7000-8000-0000000000c1',
    seq: 7,
    level: 'INFO',
    at: '2026-03-01T09:59:58.000Z',
    received_at: '2026-03-01T10:00:00.000Z',
    action: 'read',
    effect: 'permit',
    policy: 'finance',
    guard_point: '/data/finance',
    os_user: 'alice',
    process: '/usr/bin/cat',
    resource: '/data/finance/q1.xlsx',
    client_id: '0A1B2C',
    client_cn: 'db-01.example.test',
    client_name: 'db-01',
    client_os: 'Linux 6.1',
    ip: '10.0.0.9',
    domain_name: 'root',
    details: { inode: 42 },
    ...overrides,
  };
}

const records = [
  record(),
  record({
    id: '0195f0a0-0000-7000-8000-0000000000c2',
    seq: 8,
    level: 'WARN',
    action: 'write',
    effect: 'deny',
    os_user: 'mallory',
  }),
];

function serve() {
  const fake = fakeAdapter((config) =>
    config.url === api.clientLog.list.path
      ? envelope({ data: records, total: records.length, total_exact: true, next_cursor: null })
      : config.url === api.log.list.path
        ? envelope({ data: [], total: 0, total_exact: true, next_cursor: null })
        : envelope(null),
  );
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

const clientCalls = (seen: ReturnType<typeof serve>) =>
  seen.filter((config) => config.url === api.clientLog.list.path);
const rowOf = (index: number) => screen.getByTestId(`client-log-row-${records[index]!.id}`);

signedInEachTest({ permissions: ['log:read'] });
afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await changeLanguage('en');
});

describe('client records tab', () => {
  it("opens from ?tab=client with the client columns, and the tab switch drops the other tab's filters", async () => {
    const seen = serve();
    const { router } = renderPage('/console/log?tab=client', '/console/log', <LogPage />);
    await screen.findByTestId(`client-log-row-${records[0]!.id}`);
    expect(within(rowOf(1)).getByTestId('client-log-level').textContent).toBe('WARN');
    expect(within(rowOf(1)).getByTestId('client-log-effect').textContent).toBe('Deny');
    expect(within(rowOf(1)).getByTestId('client-log-user').textContent).toBe('mallory');
    expect(within(rowOf(0)).getByText('db-01 (Linux 6.1)')).toBeTruthy();
    for (const title of ['Level', 'Received', 'Action', 'Resource', 'Executor (OS user)', 'Client', 'Result'])
      expect(screen.getAllByText(title, { selector: 'th, th *' }).length).toBeGreaterThan(0);
    expect(clientCalls(seen)).toHaveLength(1);

    fireEvent.click(screen.getByTestId('log-tab-server'));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    fireEvent.click(screen.getByTestId('log-tab-client'));
    await waitFor(() => expect(router.state.location.search).toBe('?tab=client'));
  });

  it('sends the filters, keeping the tab in the URL', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-31T12:00:00.000Z') });
    const seen = serve();
    const { router } = renderPage('/console/log?tab=client', '/console/log', <LogPage />);
    await screen.findByTestId(`client-log-row-${records[0]!.id}`);
    await choose('client-log-filter-time', 'Last month');
    await choose('client-log-filter-level', 'WARN');
    await choose('client-log-filter-effect', 'Deny');
    fireEvent.change(screen.getByTestId('client-log-filter-client'), { target: { value: 'db-01' } });
    fireEvent.change(screen.getByTestId('client-log-filter-os_user'), { target: { value: 'mallory' } });
    fireEvent.click(screen.getByTestId('client-log-search'));
    await waitFor(() =>
      expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
        tab: 'client',
        time: 'month',
        level: 'WARN',
        effect: 'deny',
        client: 'db-01',
        os_user: 'mallory',
      }),
    );
    await waitFor(() =>
      expect(clientCalls(seen).at(-1)?.params).toEqual({
        page: 1,
        page_size: 20,
        from: '2026-02-28T12:00:00.000Z',
        level: 'WARN',
        effect: 'deny',
        client: 'db-01',
        os_user: 'mallory',
      }),
    );
    vi.useRealTimers();
  });

  it('opens a record in the drawer and exports with the applied filters', async () => {
    serve();
    const saved = captureDownloads();
    const fetchMock = vi.fn<typeof fetch>(() =>
      Promise.resolve(
        new Response('[]', {
          headers: {
            'content-type': 'application/json',
            'content-disposition': 'attachment; filename="ksp-client-log-20260301-100000Z.json"',
          },
        }),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
    renderPage('/console/log?tab=client&effect=deny', '/console/log', <LogPage />);
    await screen.findByTestId(`client-log-row-${records[1]!.id}`);
    fireEvent.click(within(rowOf(1)).getAllByTestId('client-log-open')[0]!);
    const drawer = await screen.findByTestId('client-log-detail');
    expect(within(drawer).getByTestId('client-log-detail-id').textContent).toBe(records[1]!.id);
    expect(within(drawer).getByText('/data/finance')).toBeTruthy();
    expect(within(drawer).getByText('0A1B2C')).toBeTruthy();

    fireEvent.click(screen.getByTestId('client-log-export-json'));
    await waitFor(() => expect(saved.map((s) => s.name)).toEqual(['ksp-client-log-20260301-100000Z.json']));
    const [input] = fetchMock.mock.calls[0]!;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const sent = new URL(url, 'http://localhost');
    expect(sent.pathname).toBe(api.clientLog.export.path);
    expect(Object.fromEntries(sent.searchParams)).toEqual({ effect: 'deny', format: 'json' });
  });

  it('names the tab, the columns and the values in Chinese', async () => {
    serve();
    await changeLanguage('zh');
    renderPage('/console/log?tab=client', '/console/log', <LogPage />);
    await screen.findByTestId(`client-log-row-${records[0]!.id}`);
    expect(screen.getByTestId('log-tab-client').textContent).toBe('客户端日志');
    for (const title of ['级别', '接收时间', '资源', '执行者（系统用户）', '客户端', '结果'])
      expect(screen.getAllByText(title, { selector: 'th, th *' }).length).toBeGreaterThan(0);
    expect(within(rowOf(1)).getByTestId('client-log-effect').textContent).toBe('拒绝');
  });
});
