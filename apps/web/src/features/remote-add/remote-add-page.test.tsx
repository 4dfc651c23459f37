import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { api } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { http, resetClient } from '../../api/client';
import { i18n } from '../../i18n/i18n';
import { envelope, fakeAdapter } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { linuxCommand, readFragment, windowsCommand } from '../../components/enrol-command';
import RemoteAddPage from './remote-add-page';
import { restoreAdapterAfterEach } from '../../test-session';

const TOKEN = 'ksprt_AbC-d_9';
const FINGERPRINT = 'AA:BB:CC:DD';

function serve(tls = true) {
  const fake = fakeAdapter((config: InternalAxiosRequestConfig) =>
    config.url === api.remoteAdd.info.path
      ? envelope(
          tls
            ? { tls: true, ca_fingerprint_sha256: FINGERPRINT, ca_subject: 'CN=KSP CA' }
            : { tls: false, ca_fingerprint_sha256: null, ca_subject: null },
        )
      : envelope(null, 4040, 'Not served'),
  );
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  localStorage.clear();
});
afterEach(() => {
  window.history.replaceState(null, '', '/');
});

describe('enrolment command', () => {
  it('is the ksp-agent enrol command for Linux and Windows, the host name by default', () => {
    const input = { server: 'https://ksp.example', token: TOKEN, type: 'tde' as const, name: '' };
    expect(linuxCommand(input)).toBe(
      `sudo ksp-agent enrol --server 'https://ksp.example' --token '${TOKEN}' --type tde --name "$(hostname)" --state /var/lib/ksp-agent`,
    );
    expect(windowsCommand({ ...input, name: 'web-01' })).toContain(`--type tde --name 'web-01'`);
    expect(readFragment(`#token=${TOKEN}&type=rdm`)).toEqual({ token: TOKEN, type: 'rdm' });
    expect(readFragment('#type=kmip')).toEqual({ token: '', type: null });
  });
});

describe.each(['en', 'zh'] as const)('/remote-add (%s)', (lang) => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage(lang));
    await i18n.loadNamespaces('remoteAdd');
  });
  afterEach(async () => {
    await act(() => i18n.changeLanguage('en'));
  });

  it('shows the command for the token in the fragment, drops it from the address bar, and the CA fingerprint', async () => {
    const seen = serve();
    window.history.replaceState(null, '', `/remote-add#token=${TOKEN}&type=kadp`);
    renderPage(`/remote-add#token=${TOKEN}&type=kadp`, '/remote-add', <RemoteAddPage />);
    const linux = await screen.findByTestId('remote-add-linux');
    expect(linux.textContent).toContain(`--token '${TOKEN}' --type kadp`);
    expect(linux.textContent).toContain(`--server '${window.location.origin}'`);
    expect(screen.getByTestId('remote-add-windows').textContent).toContain('ksp-agent.exe enrol');
    expect(screen.getByText(lang === 'en' ? 'Windows (PowerShell)' : 'Windows（PowerShell）')).toBeTruthy();
    expect((await screen.findByTestId('remote-add-fingerprint')).textContent).toContain(FINGERPRINT);
    await waitFor(() => expect(window.location.hash).toBe(''));
    // The token was never sent to the server.
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
  });

  it('refuses a crafted token (no shell text reaches the command) and asks for one', async () => {
    serve(false);
    renderPage('/remote-add', '/remote-add', <RemoteAddPage />);
    const input = await screen.findByTestId('remote-add-token');
    fireEvent.change(input, { target: { value: "x'; rm -rf / #" } });
    expect(
      await screen.findByText(lang === 'en' ? /letters, digits and "_" or "-" only/ : /只包含字母、数字/),
    ).toBeTruthy();
    expect(screen.queryByTestId('remote-add-linux')).toBeNull();
    fireEvent.change(input, { target: { value: TOKEN } });
    fireEvent.change(screen.getByTestId('remote-add-name'), { target: { value: 'db 01' } });
    expect(screen.queryByTestId('remote-add-linux')).toBeNull();
    fireEvent.change(screen.getByTestId('remote-add-name'), { target: { value: 'db-01' } });
    expect((await screen.findByTestId('remote-add-linux')).textContent).toContain(`--name 'db-01'`);
    expect((await screen.findByTestId('remote-add-fingerprint')).textContent).toContain(
      lang === 'en' ? 'does not use TLS' : '未使用 TLS',
    );
  });
});
