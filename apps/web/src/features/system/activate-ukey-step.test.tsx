import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { http, resetClient } from '../../api/client';
import { envelope, fakeAdapter } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { ActivateUkeyStep } from './activate-ukey-step';
import { restoreAdapterAfterEach } from '../../test-session';

const originalFetch = globalThis.fetch;
const BRIDGE = 'http://127.0.0.1:47615';
let mfa = '0';

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  mfa = '0';
  http.defaults.adapter = fakeAdapter((config) =>
    config.url === api.config.outlist.path
      ? envelope([
          { key: 'MFA', value: mfa },
          { key: 'UKEY_BRIDGE', value: BRIDGE },
        ])
      : envelope(null, 4040, 'not found'),
  ).adapter;
});
afterEach(() => {
  globalThis.fetch = originalFetch;
});

describe('activation: verify UKEY', () => {
  it('reads the UKEY through the configured bridge and hands it on; Skip while MFA is off', async () => {
    const fetch = vi.fn(
      async (_url: string) =>
        new Response(JSON.stringify({ serial: 'SN-1', certificate: 'PEM' }), { status: 200 }),
    );
    globalThis.fetch = fetch as typeof globalThis.fetch;
    const done = vi.fn();
    renderPage('/user-active', '/user-active', <ActivateUkeyStep onDone={done} />);
    await screen.findByTestId('activate-skip-ukey');
    expect(screen.getByTestId<HTMLInputElement>('activate-ukey-bridge').value).toBe(BRIDGE);
    expect(screen.getByTestId('activate-ukey-next').hasAttribute('disabled')).toBe(true);
    fireEvent.click(screen.getByTestId('activate-ukey-read'));
    expect((await screen.findByTestId('activate-ukey-ready')).textContent).toContain('SN-1');
    expect(fetch.mock.calls[0]?.[0]).toBe(`${BRIDGE}/certificate`);
    fireEvent.click(screen.getByTestId('activate-ukey-next'));
    expect(done).toHaveBeenCalledWith({ serial: 'SN-1', certificate: 'PEM' });
  });

  it('cannot be skipped while MFA is on, and says why a read failed', async () => {
    mfa = '1';
    globalThis.fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    renderPage('/user-active', '/user-active', <ActivateUkeyStep onDone={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('activate-ukey-rule').textContent).toContain('MFA is on'));
    expect(screen.queryByTestId('activate-skip-ukey')).toBeNull();
    fireEvent.click(screen.getByTestId('activate-ukey-read'));
    expect((await screen.findByTestId('activate-ukey-error')).textContent).toContain(
      `The UKEY bridge does not answer at ${BRIDGE}`,
    );
  });
});
