import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import dayjs from 'dayjs';
import { api, Code } from '@ksp/contracts';
import { envelope, fakeAdapter, signedInFixture } from '../test-fixtures';
import { ApiError } from './api-error';
import { call, http, REQUEST_TIMEOUT_MS, resetClient, upload } from './client';
import { configureClient } from './client-environment';
import { isEmbedded, postToParent } from './parent-window';
import { getToken, saveSignedIn, sessionKeys } from './session';
import { restoreAdapterAfterEach } from '../test-session';

vi.mock('./parent-window', () => {
  const isEmbedded = vi.fn(() => false);
  // A sub-console window is one the product page named: none here.
  return { isEmbedded, isHosted: () => isEmbedded(), subConsoleArea: () => null, postToParent: vi.fn() };
});

const ui = {
  showError: vi.fn(),
  showSessionExpired: vi.fn(),
  reload: vi.fn(),
  onNotReady: vi.fn(),
  onPasswordChangeRequired: vi.fn(),
};

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  vi.mocked(isEmbedded).mockReturnValue(false);
  configureClient(ui);
});

afterEach(() => {
  vi.clearAllMocks();
});

function answer(reply: Parameters<typeof fakeAdapter>[0]) {
  const fake = fakeAdapter(reply);
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

describe('request', () => {
  it('sends the stored token, the version header, credentials and a 20 s timeout', async () => {
    saveSignedIn(signedInFixture());
    const seen = answer(() => envelope({ userinfo: signedInFixture().userinfo, menu: [] }));
    await call(api.user.info);
    const config = seen[0];
    expect(config?.url).toBe('/v1/ksp/user/info');
    expect(config?.method).toBe('get');
    expect(config?.headers.get('token')).toBe('token-1');
    expect(config?.headers.get('version')).toBe('v1.9.0');
    expect(config?.headers.get('Accept-Language')).toBeTruthy();
    expect(config?.withCredentials).toBe(true);
    expect(config?.timeout).toBe(REQUEST_TIMEOUT_MS);
    expect(REQUEST_TIMEOUT_MS).toBe(20000);
  });

  it('leaves the token out for open_api paths', async () => {
    saveSignedIn(signedInFixture());
    const seen = answer(() => envelope(null));
    await http.get('/v1/ksp/open_api/ping');
    expect(seen[0]?.headers.has('token')).toBe(false);
    expect(seen[0]?.headers.get('version')).toBe('v1.9.0');
  });

  it('sends no token header when none is stored', async () => {
    const seen = answer(() => envelope([]));
    await call(api.config.outlist);
    expect(seen[0]?.headers.has('token')).toBe(false);
  });

  it('takes method, path, query and body from the contract call', async () => {
    saveSignedIn(signedInFixture());
    const seen = answer(() => envelope({ data: [], total: 0 }));
    await call(api.config.list, { query: { page: 2, page_size: 20, key: 'MFA' } });
    expect(seen[0]?.params).toEqual({ page: 2, page_size: 20, key: 'MFA' });

    const ids = ['7d7f2c7e-0c1a-4b8e-9a53-0f6f1f3f0a11'];
    answer(() => envelope({ deleted: 1 }));
    const deleted = await call(api.config.delete, { body: { ids } });
    expect(deleted).toEqual({ deleted: 1 });
  });

  it('posts each request to the parent page when embedded', async () => {
    vi.mocked(isEmbedded).mockReturnValue(true);
    answer(() => envelope([]));
    await call(api.config.outlist);
    expect(postToParent).toHaveBeenCalledWith({ type: 'request', url: '/v1/ksp/admin/config/outlist' });
  });

  it('uploads multipart with the file in field "file"', async () => {
    saveSignedIn(signedInFixture());
    const seen = answer(() =>
      envelope({
        id: '1',
        key: 'logo',
        value: 'data:image/png;base64,AA==',
        public: true,
        built_in: true,
        read_only: false,
        description: '',
        updated_at: '2026-01-01T00:00:00Z',
      }),
    );
    await upload(api.config.upload, new Blob(['x'], { type: 'image/png' }), { filename: 'logo.png' });
    const body: unknown = seen[0]?.data;
    expect(body).toBeInstanceOf(FormData);
    expect((body as FormData).get('file')).toBeInstanceOf(Blob);
  });
});

describe('response', () => {
  it('resolves the data of code 0', async () => {
    answer(() => envelope([{ key: 'MFA', value: '0' }]));
    await expect(call(api.config.outlist)).resolves.toEqual([{ key: 'MFA', value: '0' }]);
  });

  it('4604 standalone: alert "Log In Again", then clears the token and reloads', async () => {
    saveSignedIn(signedInFixture());
    answer(() => envelope(null, Code.SESSION_EXPIRED, 'expired'));
    await expect(call(api.user.info)).rejects.toMatchObject({ code: Code.SESSION_EXPIRED });
    expect(ui.showSessionExpired).toHaveBeenCalledTimes(1);
    const [, content, okText, onConfirm] = ui.showSessionExpired.mock.calls[0] as [
      string,
      string,
      string,
      () => void,
    ];
    expect(content).toBe('Your identity information has expired. Please log in again!');
    expect(okText).toBe('Log In Again');
    expect(getToken()).toBe('token-1');
    onConfirm();
    expect(getToken()).toBeNull();
    expect(ui.reload).toHaveBeenCalledTimes(1);
    expect(ui.showError).not.toHaveBeenCalled();
  });

  it('4604 shows one alert for several expired calls', async () => {
    saveSignedIn(signedInFixture());
    answer(() => envelope(null, Code.SESSION_EXPIRED, 'expired'));
    await Promise.allSettled([call(api.user.info), call(api.dashboard.summary)]);
    expect(ui.showSessionExpired).toHaveBeenCalledTimes(1);
  });

  it('4604 embedded: posts tokenExpired to the parent page instead', async () => {
    vi.mocked(isEmbedded).mockReturnValue(true);
    saveSignedIn(signedInFixture());
    answer(() => envelope(null, Code.SESSION_EXPIRED, 'expired'));
    await expect(call(api.user.info)).rejects.toBeInstanceOf(ApiError);
    expect(postToParent).toHaveBeenCalledWith({ type: 'tokenExpired' });
    expect(ui.showSessionExpired).not.toHaveBeenCalled();
  });

  it('4503 is rejected silently for the caller', async () => {
    answer(() => envelope(null, Code.UKEY_REQUIRED, 'Please log in with Ukey'));
    await expect(call(api.user.login, { body: { username: 'a', password: 'b' } })).rejects.toMatchObject({
      code: Code.UKEY_REQUIRED,
    });
    expect(ui.showError).not.toHaveBeenCalled();
  });

  it('another code shows the server message and rejects', async () => {
    answer(() => envelope(null, Code.CONFLICT, "Configuration key 'x' already exists"));
    await expect(call(api.config.outlist)).rejects.toMatchObject({ code: Code.CONFLICT });
    expect(ui.showError).toHaveBeenCalledWith("Configuration key 'x' already exists");
  });

  it("shows the instants a message names in the user's local time, not as raw ISO text", async () => {
    const until = '2026-11-29T03:53:46.130Z';
    answer(() =>
      envelope(
        null,
        Code.ACCOUNT_LOCKED,
        `The account is locked after too many failed logins; try again after ${until}`,
      ),
    );
    const local = dayjs(until).format('YYYY-MM-DD HH:mm:ss');
    const expected = `The account is locked after too many failed logins; try again after ${local}`;
    await expect(call(api.config.outlist)).rejects.toMatchObject({ message: expected });
    expect(ui.showError).toHaveBeenCalledWith(expected);
  });

  it('another code without a message shows "Error"', async () => {
    answer(() => envelope(null, Code.INVALID, ''));
    await expect(call(api.config.outlist)).rejects.toBeInstanceOf(ApiError);
    expect(ui.showError).toHaveBeenCalledWith('Error');
  });

  it('silent calls show no message', async () => {
    answer(() => envelope(null, Code.FORBIDDEN, 'no'));
    await expect(call(api.config.outlist, {}, { silent: true })).rejects.toBeInstanceOf(ApiError);
    expect(ui.showError).not.toHaveBeenCalled();
  });

  it('5030 also tells the app to look at the system status', async () => {
    answer(() => envelope(null, Code.NOT_INITIALIZED, 'The system is not initialized'));
    await expect(call(api.dashboard.summary)).rejects.toBeInstanceOf(ApiError);
    expect(ui.onNotReady).toHaveBeenCalledTimes(1);
  });

  it('HTTP 401 clears the token and reloads', async () => {
    saveSignedIn(signedInFixture());
    answer(() => ({ status: 401, data: { code: 401, msg: 'Invalid token', data: null } }));
    await expect(call(api.user.info)).rejects.toMatchObject({ status: 401 });
    expect(getToken()).toBeNull();
    expect(localStorage.getItem(sessionKeys.tokenTime)).toBeNull();
    expect(ui.reload).toHaveBeenCalledTimes(1);
  });

  it('another HTTP error shows the server message', async () => {
    answer(() => ({
      status: 500,
      data: { code: 5000, msg: 'Unexpected server error (reference abc)', data: null },
    }));
    await expect(call(api.config.outlist)).rejects.toMatchObject({ status: 500 });
    expect(ui.showError).toHaveBeenCalledWith('Unexpected server error (reference abc)');
  });

  it('a network failure shows "Error: Network Error"', async () => {
    answer(() => ({ network: true }));
    await expect(call(api.config.outlist)).rejects.toBeInstanceOf(ApiError);
    expect(ui.showError).toHaveBeenCalledWith('Error: Network Error');
  });
});

describe('token refresh', () => {
  it('refreshes once refresh_seconds have passed, before the call, once for concurrent calls', async () => {
    saveSignedIn(signedInFixture(), Date.now() - 601_000);
    const seen = answer((config) =>
      config.url === api.token.refresh.path
        ? envelope('token-2')
        : envelope({ userinfo: signedInFixture().userinfo, menu: [] }),
    );
    await Promise.all([call(api.user.info), call(api.user.info)]);
    const urls = seen.map((config) => config.url);
    expect(urls.filter((url) => url === api.token.refresh.path)).toHaveLength(1);
    expect(urls[0]).toBe(api.token.refresh.path);
    expect(seen[0]?.headers.get('token')).toBe('token-1');
    const infoCalls = seen.filter((config) => config.url === api.user.info.path);
    expect(infoCalls.map((config) => config.headers.get('token'))).toEqual(['token-2', 'token-2']);
    expect(getToken()).toBe('token-2');
    expect(Number(localStorage.getItem(sessionKeys.tokenTime))).toBeGreaterThan(Date.now() - 5000);
  });

  it('does not refresh a young token', async () => {
    saveSignedIn(signedInFixture());
    const seen = answer(() => envelope({ userinfo: signedInFixture().userinfo, menu: [] }));
    await call(api.user.info);
    expect(seen.map((config) => config.url)).toEqual([api.user.info.path]);
  });
});
