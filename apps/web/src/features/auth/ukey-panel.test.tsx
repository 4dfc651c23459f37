import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { InternalAxiosRequestConfig } from 'axios';
import { api, Code } from '@ksp/contracts';
import { resetClient } from '../../api/client';
import { getSignedIn, getToken, type SignedIn } from '../../api/session';
import { envelope, signedInFixture, readyStatus } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import LoginPage from './login-page';
import { UkeyPanel } from './ukey-panel';
import { answerWith, restoreAdapterAfterEach } from '../../test-session';

const BRIDGE = 'http://127.0.0.1:5555';
const CHALLENGE = 'a1b2c3d4';

interface Server {
  verify?: () => ReturnType<typeof envelope>;
  random?: () => ReturnType<typeof envelope>;
  login?: () => ReturnType<typeof envelope>;
}

function serve(server: Server = {}) {
  return answerWith((config) => {
    switch (config.url) {
      case api.system.status.path:
        return envelope(readyStatus);
      case api.config.outlist.path:
        return envelope([
          { key: 'MFA', value: '1' },
          { key: 'UKEY_BRIDGE', value: `${BRIDGE}/` },
        ]);
      case api.user.login.path:
        return (server.login ?? (() => envelope(null, Code.UKEY_REQUIRED, 'Please log in with Ukey')))();
      case api.user.random.path:
        return (server.random ?? (() => envelope({ random: CHALLENGE, expires_in: 60 })))();
      case api.user.verify.path:
        return (server.verify ?? (() => envelope(signedInFixture())))();
      default:
        return envelope(null);
    }
  });
}

type Bridge = (url: string, init?: RequestInit) => Promise<Response>;

function bridge(answer: Bridge) {
  const fetchMock = vi.fn(answer);
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const json = (status: number, body: unknown) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
  );

const signed = () => json(200, { signature: 'c2lnbmF0dXJl', certificate: 'PEM', serial: '0123' });

function renderPanel() {
  const onSignedIn = vi.fn<(data: SignedIn) => void>();
  const onBack = vi.fn();
  renderPage('/login', '/login', <UkeyPanel username="admin" onBack={onBack} onSignedIn={onSignedIn} />);
  return { onSignedIn, onBack };
}

async function enterPin(pin: string) {
  fireEvent.change(await screen.findByTestId('ukey-pin'), { target: { value: pin } });
  fireEvent.click(screen.getByTestId('ukey-submit'));
}

const calls = (seen: InternalAxiosRequestConfig[], path: string) => seen.filter((c) => c.url === path);

restoreAdapterAfterEach();
beforeEach(() => resetClient());
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the UKEY login panel', () => {
  it('wants a PIN of at least 6 characters before asking for anything', async () => {
    const seen = serve();
    const fetchMock = bridge(signed);
    renderPanel();
    await enterPin('12345');
    expect(await screen.findByText('PIN cannot be less than 6 characters')).toBeTruthy();
    expect(calls(seen, api.user.random.path)).toEqual([]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('fetches the challenge, has the bridge sign it with the PIN, verifies and signs in', async () => {
    const seen = serve();
    const fetchMock = bridge(signed);
    const { onSignedIn } = renderPanel();
    await enterPin('123456');
    await waitFor(() => expect(onSignedIn).toHaveBeenCalled());

    const random = calls(seen, api.user.random.path);
    expect(random).toHaveLength(1);
    expect(random[0]?.params).toEqual({ name: 'admin' });
    expect(random[0]?.silent).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`${BRIDGE}/sign`);
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({ pin: '123456', data: CHALLENGE });
    const verify = calls(seen, api.user.verify.path);
    expect(JSON.parse(String(verify[0]?.data))).toEqual({ name: 'admin', sign: 'c2lnbmF0dXJl' });
    expect(verify[0]?.silent).toBe(true);
    expect(getToken()).toBe('token-1');
    expect(getSignedIn()?.userinfo.name).toBe('admin');
  });

  it("shows the bridge's error (a wrong PIN) and lets the user try again", async () => {
    const seen = serve();
    let answer: Bridge = () => json(401, { error: 'The PIN is incorrect' });
    bridge((url, init) => answer(url, init));
    const { onSignedIn } = renderPanel();
    await enterPin('000000');
    expect((await screen.findByTestId('ukey-error')).textContent).toContain('The PIN is incorrect');
    expect(calls(seen, api.user.verify.path)).toEqual([]);
    answer = signed;
    await enterPin('123456');
    await waitFor(() => expect(onSignedIn).toHaveBeenCalled());
  });

  it('says where the bridge was expected when nothing answers there', async () => {
    serve();
    bridge(() => Promise.reject(new TypeError('Failed to fetch')));
    renderPanel();
    await enterPin('123456');
    expect((await screen.findByTestId('ukey-error')).textContent).toContain(
      `The UKEY bridge is not reachable at ${BRIDGE}`,
    );
    expect(screen.getByTestId('ukey-pin')).toBeTruthy();
  });

  it('reports a refused verification itself (the call is silent) and sends the user back to the password', async () => {
    serve({ verify: () => envelope(null, Code.BAD_CREDENTIALS, 'SERVER TEXT') });
    bridge(signed);
    const { onSignedIn, onBack } = renderPanel();
    await enterPin('123456');
    expect((await screen.findByTestId('ukey-error')).textContent).toContain('UKEY verification failed');
    expect(document.body.textContent).not.toContain('SERVER TEXT');
    expect(screen.queryByTestId('ukey-pin')).toBeNull();
    expect(onSignedIn).not.toHaveBeenCalled();
    expect(getToken()).toBeNull();
    fireEvent.click(screen.getByTestId('ukey-back'));
    expect(onBack).toHaveBeenCalled();
  });

  it('shows why the server gave no challenge (the password window passed)', async () => {
    serve({ random: () => envelope(null, Code.STATE_FORBIDS, 'Sign in with your password first') });
    const fetchMock = bridge(signed);
    renderPanel();
    await enterPin('123456');
    expect((await screen.findByTestId('ukey-error')).textContent).toContain(
      'Sign in with your password first',
    );
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('the login page with MFA on', () => {
  it('goes from the password (4503) to the PIN and on to the wanted page', async () => {
    serve();
    bridge(signed);
    const { router } = renderPage('/login?redirect=%2Fconsole%2Fsetting%2Fconfig', '/login', <LoginPage />, {
      '/console/setting/config': 'config page',
    });
    fireEvent.change(await screen.findByTestId('login-username'), { target: { value: ' admin ' } });
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    expect((await screen.findByTestId('ukey-panel')).textContent).toContain('Please log in with Ukey');
    await enterPin('123456');
    await screen.findByText('config page');
    expect(router.state.location.pathname).toBe('/console/setting/config');
  });

  it('goes to the forced password change when the user must change it', async () => {
    serve({ verify: () => envelope(signedInFixture({ must_change_password: true })) });
    bridge(signed);
    renderPage('/login', '/login', <LoginPage />, { '/change-password': 'change page' });
    fireEvent.change(await screen.findByTestId('login-username'), { target: { value: 'admin' } });
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    await enterPin('123456');
    await screen.findByText('change page');
  });
});
