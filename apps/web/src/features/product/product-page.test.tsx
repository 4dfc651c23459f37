import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, type ProductTile } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { resetClient } from '../../api/client';
import { getToken, saveSignedIn, setToken } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import ProductPage from './product-page';
import { answerSubConsole, hostSubConsole, subConsoleWindowName } from './sub-console-host';
import { answerWith, inLanguageEachTest, restoreAdapterAfterEach } from '../../test-session';

const PATH = '/console/product';

const clients = (total: number, healthy: number) => [
  { name: 'clients' as const, value: total },
  { name: 'healthy' as const, value: healthy },
  { name: 'warning' as const, value: 0 },
  { name: 'error' as const, value: total - healthy },
  { name: 'revoked' as const, value: 0 },
];
const community = (feature: ProductTile['license']['feature'], total: number) => ({
  feature,
  state: 'community' as const,
  total,
  used: null,
  not_after: null,
});
const tiles: ProductTile[] = [
  { product: 'tde', area: 'cte', permitted: false, figures: [], license: community('tde_clients', 5) },
  {
    product: 'kadp',
    area: 'kadp',
    permitted: true,
    figures: clients(7, 4),
    license: {
      feature: 'kadp_clients',
      state: 'licensed',
      total: 50,
      used: 9,
      not_after: '2099-01-01T00:00:00.000Z',
    },
  },
  {
    product: 'kms',
    area: 'kms',
    permitted: true,
    figures: [
      { name: 'keys', value: 12 },
      { name: 'in_use', value: 10 },
      { name: 'inactive', value: 1 },
      { name: 'disabled', value: 1 },
    ],
    license: community('keys', 1000),
  },
  { product: 'rdm', area: 'rdm', permitted: false, figures: [], license: community('rdm_clients', 5) },
  {
    product: 'sms',
    area: 'credential',
    permitted: true,
    figures: [
      { name: 'credentials', value: 3 },
      { name: 'servers', value: 2 },
    ],
    license: { ...community('sms_servers', 1), state: 'expired' },
  },
];

function serve() {
  return answerWith((config: InternalAxiosRequestConfig) => {
    switch (config.url) {
      case api.product.overview.path:
        return envelope({ tiles });
      case api.user.kadpToken.path:
        return envelope({ token: 'scoped-kadp-token' });
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  saveSignedIn(
    signedInFixture({ permissions: ['product:read', 'kadp:read', 'key:read', 'credential:read'] }),
  );
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(['en', 'zh'] as const)('product page (%s)', (lang) => {
  inLanguageEachTest(lang);

  it('shows the five products with their counts and licence state; a forbidden one disabled', async () => {
    serve();
    renderPage(PATH, PATH, <ProductPage />);
    const kadp = await screen.findByTestId('product-tile-kadp');
    expect(kadp.textContent).toContain('KADP');
    expect(screen.getByTestId('product-figure-kadp-clients').textContent).toContain('7');
    expect(screen.getByTestId('product-figure-kadp-healthy').textContent).toContain('4');
    expect(kadp.textContent).toContain(lang === 'en' ? '9 of 50 used' : '已用 9 / 50');
    expect(kadp.textContent).toContain(lang === 'en' ? 'Licensed' : '已授权');
    expect(screen.getByTestId('product-figure-kms-keys').textContent).toContain('12');
    expect(screen.getByTestId('product-tile-sms').textContent).toContain(
      lang === 'en' ? 'Licence expired' : '许可证已过期',
    );
    const tde = screen.getByTestId('product-tile-tde');
    expect(tde.textContent).toContain(lang === 'en' ? 'Transparent Encryption' : '透明加密');
    expect(tde.textContent).toContain(lang === 'en' ? 'Unlicensed' : '未授权');
    expect(tde.textContent).toContain(lang === 'en' ? 'no permission' : '没有此产品的权限');
    expect(screen.getByTestId('product-open-tab-tde').hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId('product-open-embedded-rdm').hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId('product-tile-rdm').textContent).toContain(
      lang === 'en' ? 'Anti-Ransomware' : '防勒索',
    );
  });

  it('opens a sub-console in a named new tab, and embedded in an iframe', async () => {
    serve();
    const opened = { name: '' as string | undefined, url: '' as string | URL | undefined };
    const fakeTab = { closed: false, postMessage: vi.fn() } as unknown as Window;
    vi.spyOn(window, 'open').mockImplementation((url, name) => {
      opened.url = url;
      opened.name = name;
      return fakeTab;
    });
    renderPage(PATH, PATH, <ProductPage />);
    fireEvent.click(await screen.findByTestId('product-open-tab-kadp'));
    expect(opened).toEqual({ url: '/iframe-init', name: 'ksp-sub-kadp' });
    const scrolled = vi.spyOn(Element.prototype, 'scrollIntoView');
    fireEvent.click(screen.getByTestId('product-open-embedded-kms'));
    const frame = await screen.findByTestId('product-embedded-frame');
    // Opened below the tiles, it is brought to the top of the window.
    await waitFor(() => expect(scrolled.mock.contexts).toContain(screen.getByTestId('product-embedded')));
    expect(scrolled).toHaveBeenCalledWith(expect.objectContaining({ block: 'start' }));
    expect(frame.getAttribute('name')).toBe('ksp-sub-kms');
    expect(frame.getAttribute('src')).toBe('/iframe-init');
    fireEvent.click(screen.getByTestId('product-embedded-close'));
    await waitFor(() => expect(screen.queryByTestId('product-embedded-frame')).toBeNull());
  });

  it('shows a warning when the browser blocks the new tab', async () => {
    serve();
    vi.spyOn(window, 'open').mockReturnValue(null);
    renderPage(PATH, PATH, <ProductPage />);
    fireEvent.click(await screen.findByTestId('product-open-tab-sms'));
    expect(await screen.findByText(i18n.t('product:popupBlocked'))).toBeTruthy();
  });
});

describe('the embedding protocol, console side', () => {
  it('answers initToken with a scoped token, only to a window it opened and only from its own origin', async () => {
    const seen = serve();
    const toChild = vi.fn();
    const toStranger = vi.fn();
    const child = { closed: false, postMessage: toChild } as unknown as Window;
    const stranger = { closed: false, postMessage: toStranger } as unknown as Window;
    hostSubConsole(child, 'kadp');
    const origin = window.location.origin;
    const ask = (source: Window, from = origin, data: unknown = { type: 'initToken' }) =>
      answerSubConsole(
        new MessageEvent('message', { data, origin: from, source: source as unknown as MessageEventSource }),
      );
    expect(await ask(stranger)).toBe(false);
    expect(await ask(child, 'https://evil.example')).toBe(false);
    expect(await ask(child, origin, { type: 'hello' })).toBe(false);
    expect(seen.filter((c) => c.url === api.user.kadpToken.path)).toHaveLength(0);
    expect(await ask(child)).toBe(true);
    expect(toChild).toHaveBeenCalledWith({ type: 'refreshToken', token: 'scoped-kadp-token' }, origin);
    expect(toStranger).not.toHaveBeenCalled();
    // The console's own session is untouched.
    expect(getToken()).toBe(signedInFixture().token);
  });

  it("keeps a sub-console window's session apart from the console's", () => {
    setToken('console-token');
    const previous = window.name;
    try {
      window.name = subConsoleWindowName('kadp');
      expect(getToken()).toBeNull();
      setToken('scoped');
      expect(getToken()).toBe('scoped');
      expect(sessionStorage.getItem('ksp-sub-kadp:token')).toBe('scoped');
    } finally {
      window.name = previous;
      sessionStorage.clear();
    }
    expect(getToken()).toBe('console-token');
  });
});
