import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, Code, QUANTUM_DEFAULTS, type QuantumState } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { resetClient } from '../../api/client';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture, type FakeReply } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import QuantumPage from './quantum-page';
import { answerWith, restoreAdapterAfterEach } from '../../test-session';
import { choose } from '../../test-select';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

const PATH = '/console/setting/quantum';

function state(overrides: Partial<QuantumState> = {}): QuantumState {
  return {
    enabled: false,
    source_type: 'device',
    endpoint: '',
    ...QUANTUM_DEFAULTS,
    status: 'disabled',
    failure: null,
    detail: null,
    node: 'ksp-node-1',
    last_check: null,
    throughput: null,
    bytes_consumed: 0,
    failures: 0,
    rct_cutoff: 4,
    apt_cutoff: 13,
    updated_at: null,
    ...overrides,
  };
}

interface Server {
  status?: QuantumState;
  update?: (body: unknown) => FakeReply;
  test?: () => FakeReply;
}

function serve(server: Server = {}) {
  return answerWith((config: InternalAxiosRequestConfig) => {
    if (config.url === api.quantum.status.path) return envelope(server.status ?? state());
    if (config.url === api.quantum.update.path) {
      const body: unknown = JSON.parse(String(config.data));
      return server.update ? server.update(body) : envelope({ ...state(), ...(body as object) });
    }
    if (config.url === api.quantum.test.path && server.test) return server.test();
    return envelope(null, Code.NOT_FOUND, 'Not served');
  });
}

const writer = ['quantum:read', 'quantum:write'];

function signIn(permissions: string[]) {
  saveSignedIn(signedInFixture({ permissions }));
}

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  signIn(writer);
});

async function open() {
  renderPage(PATH, PATH, <QuantumPage />);
  return screen.findByTestId('quantum-status');
}

function typeEndpoint(value: string) {
  fireEvent.change(screen.getByTestId('quantum-endpoint'), { target: { value } });
}

const sent = (seen: InternalAxiosRequestConfig[], url: string) => seen.filter((config) => config.url === url);

describe('quantum page', () => {
  it('shows an invalid source in red with the failure translated, its detail and the figures', async () => {
    serve({
      status: state({
        enabled: true,
        source_type: 'file',
        endpoint: '/var/lib/qrng/stuck.bin',
        status: 'invalid',
        failure: 'rct',
        detail: 'byte 0x41 repeated 5 times (cut-off 4)',
        last_check: '2026-01-10T12:00:00Z',
        throughput: 12595,
        bytes_consumed: 4 * 1024 * 1024,
        failures: 3,
      }),
    });
    const tag = await open();
    expect(tag.textContent).toBe('Invalid');
    expect(tag.className).toMatch(/red/);
    const failure = screen.getByTestId('quantum-failure');
    expect(within(failure).getByText('Repetition Count Test failed')).toBeTruthy();
    expect(within(failure).getByText('byte 0x41 repeated 5 times (cut-off 4)')).toBeTruthy();
    expect(screen.getByTestId('quantum-bytes-consumed').textContent).toBe('4.0 MB');
    expect(screen.getByTestId('quantum-throughput').textContent).toBe('12.3 KB/s');
    expect(screen.getByTestId('quantum-failures').textContent).toBe('3');
    expect(screen.getByTestId('quantum-current-source').textContent).toBe('File · /var/lib/qrng/stuck.bin');
    expect(screen.getByText('ksp-node-1')).toBeTruthy();
    expect(screen.getByText(/never used raw/)).toBeTruthy();
    expect(screen.getByTestId('quantum-updated-at').textContent).toMatch(/^Updated at \d\d:\d\d:\d\d$/);
  });

  it('shows a normal source in green without a failure', async () => {
    serve({ status: state({ enabled: true, endpoint: '/dev/hwrng', status: 'normal' }) });
    const tag = await open();
    expect(tag.textContent).toBe('Normal');
    expect(tag.className).toMatch(/green/);
    expect(screen.queryByTestId('quantum-failure')).toBeNull();
  });

  it('speaks Chinese: the status and the failure', async () => {
    serve({
      status: state({ enabled: true, endpoint: '/dev/hwrng', status: 'invalid', failure: 'exhausted' }),
    });
    await i18n.changeLanguage('zh');
    try {
      expect((await open()).textContent).toBe('无效');
      expect(
        within(screen.getByTestId('quantum-failure')).getByText('熵源已耗尽（到达文件末尾）'),
      ).toBeTruthy();
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('checks the endpoint by source type before sending anything', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('quantum-enabled'));
    fireEvent.click(screen.getByTestId('quantum-save'));
    expect(await screen.findByText('Please enter the endpoint to enable the source')).toBeTruthy();

    typeEndpoint('dev/hwrng');
    expect(await screen.findByText('A device or file path must be absolute (start with "/")')).toBeTruthy();

    await choose('quantum-source-type', 'Network');
    expect(await screen.findByText('An http(s) URL answering raw random bytes')).toBeTruthy();
    typeEndpoint('/dev/hwrng');
    expect(await screen.findByText('A network source must be an http:// or https:// URL')).toBeTruthy();

    typeEndpoint('https://qrng.example.com/random');
    await waitFor(() =>
      expect(screen.queryByText('A network source must be an http:// or https:// URL')).toBeNull(),
    );
    expect(sent(seen, api.quantum.update.path)).toHaveLength(0);
  });

  it('saves the form as the update body and shows the new state', async () => {
    const seen = serve({
      update: (body) =>
        envelope(state({ ...(body as Partial<QuantumState>), status: 'normal', bytes_consumed: 2048 })),
    });
    await open();
    fireEvent.click(screen.getByTestId('quantum-enabled'));
    await choose('quantum-source-type', 'File');
    typeEndpoint('  /tmp/healthy.bin ');
    // Above 8 the rule speaks and nothing is sent (the box keeps what was typed).
    fireEvent.change(screen.getByTestId('quantum-min-entropy'), { target: { value: '9' } });
    fireEvent.click(screen.getByTestId('quantum-save'));
    expect(await screen.findByText('The min-entropy must be greater than 0 and at most 8')).toBeTruthy();
    expect(sent(seen, api.quantum.update.path)).toHaveLength(0);
    fireEvent.change(screen.getByTestId('quantum-min-entropy'), { target: { value: '7.5' } });
    fireEvent.click(screen.getByTestId('quantum-save'));
    await waitFor(() => expect(sent(seen, api.quantum.update.path)).toHaveLength(1));
    expect(JSON.parse(String(sent(seen, api.quantum.update.path)[0]?.data))).toEqual({
      enabled: true,
      source_type: 'file',
      endpoint: '/tmp/healthy.bin',
      min_entropy: 7.5,
      block_bytes: QUANTUM_DEFAULTS.block_bytes,
      interval_seconds: QUANTUM_DEFAULTS.interval_seconds,
    });
    await waitFor(() => expect(screen.getByTestId('quantum-status').textContent).toBe('Normal'));
    expect(screen.getByTestId('quantum-bytes-consumed').textContent).toBe('2.0 KB');
  });

  it("shows the server's refusal of an enable and keeps what was typed", async () => {
    const refusal =
      'The source failed its start-up tests (rct): byte 0x41 repeated 5 times (Repetition Count Test cut-off 4)';
    serve({ update: () => envelope(null, Code.INVALID, refusal) });
    await open();
    fireEvent.click(screen.getByTestId('quantum-enabled'));
    await choose('quantum-source-type', 'File');
    typeEndpoint('/tmp/stuck.bin');
    fireEvent.click(screen.getByTestId('quantum-save'));
    const error = await screen.findByTestId('quantum-save-error');
    expect(within(error).getByText(refusal)).toBeTruthy();
    expect(
      within(error).getByText('The server refused the settings: Repetition Count Test failed'),
    ).toBeTruthy();
    expect(screen.getByTestId('quantum-endpoint')).toHaveProperty('value', '/tmp/stuck.bin');
    expect(screen.getByTestId('quantum-enabled').getAttribute('aria-checked')).toBe('true');
    expect(screen.getByTestId('quantum-status').textContent).toBe('Disabled');
  });

  it('tests the source now, shows the outcome and refreshes the status from it', async () => {
    const healthy = state({ enabled: true, source_type: 'file', endpoint: '/tmp/healthy.bin' });
    const seen = serve({
      status: { ...healthy, status: 'invalid', failure: 'unreachable', detail: 'ENOENT' },
      test: () =>
        envelope({
          ok: true,
          failure: null,
          detail: null,
          bytes: 4096,
          ms: 3.2,
          state: { ...healthy, status: 'normal', bytes_consumed: 4096 },
        }),
    });
    expect((await open()).textContent).toBe('Invalid');
    fireEvent.click(screen.getByTestId('quantum-test'));
    const result = await screen.findByTestId('quantum-test-result');
    expect(result.getAttribute('data-ok')).toBe('true');
    expect(within(result).getByText('The source passed the start-up tests')).toBeTruthy();
    expect(within(result).getByText('4.0 KB read in 3.2 ms')).toBeTruthy();
    expect(screen.getByTestId('quantum-status').textContent).toBe('Normal');
    expect(screen.getByTestId('quantum-bytes-consumed').textContent).toBe('4.0 KB');
    expect(sent(seen, api.quantum.test.path)[0]?.method).toBe('post');
  });

  it('shows a failed test with the reason and detail', async () => {
    const stuck = state({ enabled: true, source_type: 'file', endpoint: '/tmp/stuck.bin' });
    serve({
      status: stuck,
      test: () =>
        envelope({
          ok: false,
          failure: 'apt',
          detail: 'byte 0x41 seen 512 times in 512 (cut-off 13)',
          bytes: 1024,
          ms: 1.5,
          state: { ...stuck, status: 'invalid', failure: 'apt', failures: 1 },
        }),
    });
    await open();
    fireEvent.click(screen.getByTestId('quantum-test'));
    const result = await screen.findByTestId('quantum-test-result');
    expect(result.getAttribute('data-ok')).toBe('false');
    expect(
      within(result).getByText('The source failed the test: Adaptive Proportion Test failed'),
    ).toBeTruthy();
    expect(within(result).getByText('byte 0x41 seen 512 times in 512 (cut-off 13)')).toBeTruthy();
    expect(screen.getByTestId('quantum-status').textContent).toBe('Invalid');
  });

  it('hides save and test without quantum:write and keeps the form read-only', async () => {
    signIn(['quantum:read']);
    serve({ status: state({ enabled: true, endpoint: '/dev/hwrng', status: 'normal' }) });
    await open();
    expect(screen.queryByTestId('quantum-save')).toBeNull();
    expect(screen.queryByTestId('quantum-test')).toBeNull();
    expect(screen.getByTestId('quantum-endpoint')).toHaveProperty('disabled', true);
    expect(screen.getByTestId('quantum-enabled')).toHaveProperty('disabled', true);
    expect(screen.getByText(/needs the quantum:write permission/)).toBeTruthy();
  });
});
