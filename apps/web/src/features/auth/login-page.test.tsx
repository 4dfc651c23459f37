import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, Code } from '@ksp/contracts';
import { http, resetClient } from '../../api/client';
import { getToken } from '../../api/session';
import { envelope, fakeAdapter, signedInFixture, readyStatus } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import LoginPage from './login-page';
import { answerWith, restoreAdapterAfterEach } from '../../test-session';

function serve(login: () => ReturnType<typeof envelope>) {
  return answerWith((config) => {
    if (config.url === api.system.status.path) return envelope(readyStatus);
    if (config.url === api.config.outlist.path) return envelope([{ key: 'MFA', value: '0' }]);
    if (config.url === api.user.login.path) return login();
    if (config.url === api.config.list.path) return envelope({ data: [], total: 0 });
    return envelope(null);
  });
}

restoreAdapterAfterEach();
beforeEach(() => resetClient());

async function fillAndSubmit(username: string, password: string) {
  fireEvent.change(await screen.findByTestId('login-username'), { target: { value: username } });
  fireEvent.change(screen.getByTestId('login-password'), { target: { value: password } });
  fireEvent.click(screen.getByTestId('login-submit'));
}

describe('login page', () => {
  it('sends the encoded credentials, stores the session and follows the redirect', async () => {
    const seen = serve(() => envelope(signedInFixture()));
    const { router } = renderPage('/login?redirect=%2Fconsole%2Fsetting%2Fconfig', '/login', <LoginPage />, {
      '/console/setting/config': 'config page',
    });
    await fillAndSubmit('  admin ', 'admin');
    await screen.findByText('config page');
    const login = seen.find((config) => config.url === api.user.login.path);
    expect(JSON.parse(String(login?.data))).toEqual({
      username: 'YWRtaW4=',
      password: 'jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=',
    });
    const outlist = seen.findIndex((config) => config.url === api.config.outlist.path);
    expect(outlist).toBeLessThan(seen.indexOf(login!));
    expect(getToken()).toBe('token-1');
    expect(router.state.location.pathname).toBe('/console/setting/config');
  });

  it('shows "Incorrect username or password" on 4001', async () => {
    serve(() => envelope(null, Code.BAD_CREDENTIALS, 'Incorrect username or password'));
    renderPage('/login', '/login', <LoginPage />);
    await fillAndSubmit('admin', 'wrong');
    expect((await screen.findByTestId('login-error')).textContent).toContain(
      'Incorrect username or password',
    );
    expect(getToken()).toBeNull();
  });

  it('asks for the Ukey on 4503', async () => {
    serve(() => envelope(null, Code.UKEY_REQUIRED, 'Please log in with Ukey'));
    renderPage('/login', '/login', <LoginPage />);
    await fillAndSubmit('admin', 'admin');
    expect(await screen.findByTestId('ukey-panel')).toBeTruthy();
    expect(screen.getByText('Please log in with Ukey')).toBeTruthy();
  });

  it('requires the password', async () => {
    serve(() => envelope(signedInFixture()));
    renderPage('/login', '/login', <LoginPage />);
    fireEvent.change(await screen.findByTestId('login-username'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByText('Please enter your password')).toBeTruthy();
  });

  it('says when Caps Lock is on', async () => {
    serve(() => envelope(signedInFixture()));
    renderPage('/login', '/login', <LoginPage />);
    const password = await screen.findByTestId('login-password');
    const event = new KeyboardEvent('keydown', { key: 'A', bubbles: true });
    Object.defineProperty(event, 'getModifierState', { value: (key: string) => key === 'CapsLock' });
    fireEvent.focus(password);
    fireEvent(password, event);
    expect((await screen.findByTestId('caps-lock')).textContent).toBe('Caps Lock is on');
  });

  it('keeps the Caps Lock hint (and the button under it) in place when the password loses focus', async () => {
    serve(() => envelope(signedInFixture()));
    renderPage('/login', '/login', <LoginPage />);
    const password = await screen.findByTestId('login-password');
    const key = (capsLock: boolean) => {
      const event = new KeyboardEvent('keyup', { key: 'A', bubbles: true });
      Object.defineProperty(event, 'getModifierState', {
        value: (name: string) => capsLock && name === 'CapsLock',
      });
      return event;
    };
    fireEvent.focus(password);
    fireEvent(password, key(true));
    await screen.findByTestId('caps-lock');
    fireEvent.blur(password);
    expect(screen.queryByTestId('caps-lock')).not.toBeNull();
    // Caps Lock turned off while typing elsewhere: the window's key events say so.
    fireEvent(window, key(false));
    await waitFor(() => expect(screen.queryByTestId('caps-lock')).toBeNull());
  });

  it('goes to initialization when the system is not initialized', async () => {
    const fake = fakeAdapter((config) =>
      config.url === api.system.status.path
        ? envelope({ ...readyStatus, initialized: false, activated: false })
        : envelope([]),
    );
    http.defaults.adapter = fake.adapter;
    renderPage('/login', '/login', <LoginPage />, { '/system-active': 'init page' });
    await waitFor(() => expect(screen.getByText('init page')).toBeTruthy());
  });
});
