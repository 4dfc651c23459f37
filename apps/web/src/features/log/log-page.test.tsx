import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, type LogRecord } from '@ksp/contracts';
import dayjs from 'dayjs';
import { http } from '../../api/client';
import { DATE_TIME_FORMAT } from '../../components/date-time';
import { changeLanguage } from '../../i18n/i18n';
import { envelope, fakeAdapter } from '../../test-fixtures';
import { captureDownloads, type SavedFile } from '../../test-downloads';
import { renderPage } from '../../test-render';
import LogPage from './log-page';
import { signedInEachTest } from '../../test-session';
import { choose } from '../../test-select';

function record(overrides: Partial<LogRecord> = {}): LogRecord {
  return {
    id: '0195f0a0-0000-7000-8000-000000000001',
    at: '2026-03-01T10:00:00.000Z',
    severity: 'INFO',
    action: 'key.create',
    target: 'billing',
    result: 'success',
    username: 'admin',
    domain_name: 'root',
    source: 'web',
    ip: '10.0.0.7',
    count: 1,
    object_id: '0195f0a0-0000-7000-8000-0000000000aa',
    details: { name: 'billing', algorithm: 'AES-256' },
    ...overrides,
  };
}

const records = [
  record(),
  record({
    id: '0195f0a0-0000-7000-8000-000000000002',
    severity: 'WARNING',
    action: 'user.login',
    target: 'mallory',
    result: 'failure',
    username: 'mallory',
    domain_name: '',
    source: 'api',
    details: { reason: 'bad password' },
  }),
  record({ id: '0195f0a0-0000-7000-8000-000000000003', severity: 'ERROR', action: 'quantum.invalid' }),
  record({
    id: '0195f0a0-0000-7000-8000-000000000004',
    severity: 'CRITICAL',
    action: 'crypto.encrypt',
    count: 12,
    ip: '',
  }),
];

function serve() {
  const fake = fakeAdapter((config) =>
    config.url === api.log.list.path ? envelope({ data: records, total: records.length }) : envelope(null),
  );
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

const listCalls = (seen: ReturnType<typeof serve>) =>
  seen.filter((config) => config.url === api.log.list.path);
const rowOf = (index: number) => screen.getByTestId(`log-row-${records[index]!.id}`);

function typeInto(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

/** Opens the log page at `search` (its URL's query) and waits for the rows: answers the calls seen and the router. */
async function openAt(search: string) {
  const seen = serve();
  const { router } = renderPage(`/console/log${search}`, '/console/log', <LogPage />);
  await screen.findByTestId(`log-row-${records[0]!.id}`);
  return { seen, router };
}

let saved: SavedFile[] = [];

signedInEachTest({ permissions: ['log:read'] });
beforeEach(() => {
  saved = captureDownloads();
});
afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await changeLanguage('en');
});

describe('log page', () => {
  it('shows each severity in its colour, the action in words with its code, results, sources and ×N', async () => {
    serve();
    renderPage('/console/log', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[0]!.id}`);

    const severity = (index: number) => within(rowOf(index)).getByTestId('log-severity');
    expect(severity(0).textContent).toBe('INFO');
    expect(severity(0).className).toContain('ant-tag-blue');
    expect(severity(1).className).toContain('ant-tag-orange');
    expect(severity(2).className).toContain('ant-tag-red');
    expect(severity(3).className).toContain('ant-tag-magenta');

    expect(within(rowOf(0)).getByTestId('log-action').textContent).toBe('Key created');
    expect(within(rowOf(0)).getByTestId('log-action').dataset.action).toBe('key.create');
    expect(within(rowOf(0)).queryByTestId('log-count')).toBeNull();
    expect(within(rowOf(3)).getByTestId('log-count').textContent).toBe('×12');
    expect(within(rowOf(1)).getByTestId('log-result').textContent).toBe('Failure');
    expect(within(rowOf(1)).getByText('API')).toBeTruthy();
    expect(within(rowOf(0)).getByText('Web console')).toBeTruthy();
    expect(within(rowOf(0)).getByText('10.0.0.7')).toBeTruthy();
  });

  it('sends the URL filters (time presets as from) to the list call', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-31T12:00:00.000Z') });
    const { seen } = await openAt(
      '?time=month&severity=WARNING&result=failure&source=api&action=key.&username=admin&ip=10.0.0.7&q=billing&page=2',
    );
    vi.useRealTimers();
    expect(listCalls(seen).at(-1)?.params).toEqual({
      page: 2,
      page_size: 20,
      from: '2026-02-28T12:00:00.000Z',
      severity: 'WARNING',
      result: 'failure',
      source: 'api',
      action: 'key.',
      username: 'admin',
      ip: '10.0.0.7',
      q: 'billing',
    });
  });

  it('sends a custom range from the URL with both ends', async () => {
    const { seen } = await openAt('?time=2026-01-01T00:00:00.000Z/2026-01-02T00:00:00.000Z');
    expect(listCalls(seen).at(-1)?.params).toEqual({
      page: 1,
      page_size: 20,
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
    });
    // The picker shows the range in local time.
    const ends = screen.getAllByTestId<HTMLInputElement>('log-filter-time-range').map((input) => input.value);
    expect(ends).toEqual(
      ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'].map((iso) =>
        dayjs(iso).format(DATE_TIME_FORMAT),
      ),
    );
  });

  it('puts the chosen filters in the URL and the list call, and resets them', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-31T12:00:00.000Z') });
    const { seen, router } = await openAt('?severity=ERROR');
    expect(listCalls(seen).at(-1)?.params).toEqual({ page: 1, page_size: 20, severity: 'ERROR' });

    await choose('log-filter-time', 'Last 24 hours');
    await choose('log-filter-severity', 'WARNING');
    await choose('log-filter-result', 'Failure');
    await choose('log-filter-source', 'Scheduler');
    typeInto('log-filter-action', 'key.create');
    typeInto('log-filter-username', 'admin');
    typeInto('log-filter-ip', '10.0.0.7');
    typeInto('log-filter-q', 'billing');
    fireEvent.click(screen.getByTestId('log-search'));

    // Named the same in the URL and in the call; the time range is `time` in one, `from` in the other.
    const chosen = {
      severity: 'WARNING',
      result: 'failure',
      source: 'scheduler',
      action: 'key.create',
      username: 'admin',
      ip: '10.0.0.7',
      q: 'billing',
    };
    await waitFor(() =>
      expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
        time: '24h',
        ...chosen,
      }),
    );
    await waitFor(() =>
      expect(listCalls(seen).at(-1)?.params).toEqual({
        page: 1,
        page_size: 20,
        from: '2026-03-30T12:00:00.000Z',
        ...chosen,
      }),
    );

    fireEvent.click(screen.getByTestId('log-reset'));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    // The form empties too: a search after the reset does not bring the old filters back.
    expect(screen.getByTestId<HTMLInputElement>('log-filter-action').value).toBe('');
    expect(screen.getByTestId<HTMLInputElement>('log-filter-q').value).toBe('');
    await waitFor(() => expect(listCalls(seen).at(-1)?.params).toEqual({ page: 1, page_size: 20 }));
    vi.useRealTimers();
  });

  it('opens every field of a record in the drawer, its details as JSON', async () => {
    serve();
    renderPage('/console/log', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[1]!.id}`);
    fireEvent.click(within(rowOf(1)).getAllByText('mallory', { selector: 'td' })[0]!);
    const drawer = await screen.findByTestId('log-detail');
    expect(within(drawer).getByTestId('log-detail-id').textContent).toBe(records[1]!.id);
    expect(within(drawer).getByText('user.login')).toBeTruthy();
    expect(within(drawer).getByText('Sign-in', { selector: '[data-testid="log-action"]' })).toBeTruthy();
    expect(within(drawer).getByTestId('log-severity').textContent).toBe('WARNING');
    const details = within(drawer).getByTestId<HTMLTextAreaElement>('log-detail-details');
    expect(JSON.parse(details.value)).toEqual({ reason: 'bad password' });
    expect(details.value).toContain('\n  "reason": "bad password"\n');
    expect(details.style.fontFamily).toBe('monospace');
    expect(within(drawer).getByTestId('log-detail-details-copy')).toBeTruthy();
  });

  it('exports with fetch, the token header and the applied filters, saving the file the server names', async () => {
    serve();
    const fetchMock = vi.fn<typeof fetch>(() =>
      Promise.resolve(
        new Response('at,severity,action\r\n', {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="ksp-log-20260301-100000Z.csv"',
          },
        }),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
    renderPage('/console/log?severity=WARNING&action=key.&q=billing', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[0]!.id}`);

    fireEvent.click(screen.getByTestId('log-export-csv'));
    await waitFor(() => expect(saved).toHaveLength(1));
    const [input, init] = fetchMock.mock.calls[0]!;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const sent = new URL(url, 'http://localhost');
    expect(sent.pathname).toBe(api.log.export.path);
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      severity: 'WARNING',
      action: 'key.',
      q: 'billing',
      format: 'csv',
    });
    expect(url).not.toContain('token');
    expect(new Headers(init?.headers).get('token')).toBe('token-1');
    expect(saved[0]!.name).toBe('ksp-log-20260301-100000Z.csv');
    expect(await saved[0]!.blob.text()).toBe('at,severity,action\r\n');
  });

  it('shows a spinner while exporting, and falls back to a file name of its own', async () => {
    serve();
    let answer: (response: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() => new Promise<Response>((resolve) => (answer = resolve))),
    );
    renderPage('/console/log', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[0]!.id}`);

    fireEvent.click(screen.getByTestId('log-export-json'));
    await waitFor(() => expect(screen.getByTestId('log-export-json').className).toContain('ant-btn-loading'));
    answer(new Response('[]', { headers: { 'content-type': 'application/json; charset=utf-8' } }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.name).toBe('ksp-log.json');
    await waitFor(() =>
      expect(screen.getByTestId('log-export-json').className).not.toContain('ant-btn-loading'),
    );
  });

  it('shows the message of a refused export and saves nothing', async () => {
    serve();
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() =>
        Promise.resolve(
          new Response(JSON.stringify({ code: 4030, msg: 'You may not read the log', data: null }), {
            status: 200,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        ),
      ),
    );
    renderPage('/console/log', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[0]!.id}`);

    fireEvent.click(screen.getByTestId('log-export-csv'));
    expect(await screen.findByText('You may not read the log')).toBeTruthy();
    expect(saved).toHaveLength(0);
  });

  it('names the columns in Chinese', async () => {
    serve();
    await changeLanguage('zh');
    renderPage('/console/log', '/console/log', <LogPage />);
    await screen.findByTestId(`log-row-${records[0]!.id}`);
    for (const title of ['级别', '创建时间', '操作', '对象', '执行者', '来源平台', '结果', '客户端地址']) {
      expect(screen.getAllByText(title, { selector: 'th, th *' }).length).toBeGreaterThan(0);
    }
    expect(within(rowOf(0)).getByTestId('log-action').textContent).toBe('创建密钥');
  });
});
