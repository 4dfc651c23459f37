import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter } from 'react-router';
import { buildMenu, menuModel, permissions } from '@ksp/contracts';
import { isEmbedded } from '../api/parent-window';
import { saveSignedIn, sessionKeys } from '../api/session';
import { publicPaths } from '../config/paths';
import { signedInFixture } from '../test-fixtures';
import { routerSetup } from './router';

vi.mock('../api/parent-window', () => {
  const isEmbedded = vi.fn(() => false);
  // A sub-console window is one the product page named: none here.
  return { isEmbedded, isHosted: () => isEmbedded(), subConsoleArea: () => null, postToParent: vi.fn() };
});

const routers: { dispose(): void }[] = [];

afterEach(() => {
  for (const router of routers.splice(0)) router.dispose();
  vi.mocked(isEmbedded).mockReturnValue(false);
});

async function start(path: string) {
  const setup = routerSetup();
  const router = createMemoryRouter(setup.routes, {
    initialEntries: [path],
    patchRoutesOnNavigation: setup.patchRoutesOnNavigation,
  });
  routers.push(router);
  await vi.waitFor(
    () => expect(router.state.initialized && router.state.navigation.state === 'idle').toBe(true),
    {
      timeout: 10_000,
    },
  );
  return { router, setup };
}

const where = (router: Awaited<ReturnType<typeof start>>['router']) =>
  router.state.location.pathname + router.state.location.search;

describe('router and guard', () => {
  it('without a token sends a protected path to /login with a redirect', async () => {
    const { router } = await start('/console/setting/config?key=MFA');
    expect(where(router)).toBe('/login?redirect=%2Fconsole%2Fsetting%2Fconfig%3Fkey%3DMFA');
  });

  it('without a token lets a public route through', async () => {
    const { router } = await start('/system-active');
    expect(where(router)).toBe('/system-active');
  });

  it.each(publicPaths)(
    'serves the public route %s to a signed-out user, without a detour by /404',
    async (path) => {
      const { router } = await start(path);
      expect(where(router)).toBe(path);
      expect(router.state.matches.at(-1)?.route.path).toBe(path);
    },
  );

  it('embedded without a token goes to /iframe-init', async () => {
    vi.mocked(isEmbedded).mockReturnValue(true);
    const { router } = await start('/console/dashboard');
    expect(where(router)).toBe('/iframe-init');
  });

  it('with a token builds the menu routes from the stored user info and retries the path', async () => {
    saveSignedIn(signedInFixture());
    const { router, setup } = await start('/console/setting/config');
    expect(setup.isMenuLoaded()).toBe(true);
    expect(where(router)).toBe('/console/setting/config');
    expect(router.state.matches.at(-1)?.route.id).toBe('menu:/console/setting/config');
  });

  it('with a token sends / to the first menu page and /login to /', async () => {
    saveSignedIn(signedInFixture());
    const root = await start('/');
    expect(where(root.router)).toBe('/console/dashboard');
    const login = await start('/login');
    expect(where(login.router)).toBe('/console/dashboard');
  });

  it('redirects a menu group to its first page', async () => {
    saveSignedIn(signedInFixture());
    const { router } = await start('/console/setting');
    expect(where(router)).toBe('/console/setting/config');
  });

  it('sends an unknown path to /404', async () => {
    saveSignedIn(signedInFixture());
    const { router } = await start('/console/nowhere');
    // The catch-all renders <Navigate to="/404">: in a router without a view the match is the catch-all.
    expect(router.state.matches.at(-1)?.route.path).toBe('*');
    await router.navigate('/404');
    expect(where(router)).toBe('/404');
  });

  it('serves the profile, and /console/user-setting redirects to it', async () => {
    saveSignedIn(signedInFixture());
    const { router } = await start('/console/user-setting');
    expect(where(router)).toBe('/console/user-setting/index');
  });

  it("serves the spec's SMS routes, and their bare paths redirect to them", async () => {
    saveSignedIn(signedInFixture({}, buildMenu(menuModel, new Set(permissions))));
    for (const page of ['cred', 'server']) {
      const spec = await start(`/credential/${page}/index`);
      expect(where(spec.router)).toBe(`/credential/${page}/index`);
      expect(spec.router.state.matches.at(-1)?.route.id).toBe(`menu:/credential/${page}/index`);
      const bare = await start(`/credential/${page}`);
      expect(where(bare.router)).toBe(`/credential/${page}/index`);
    }
    const group = await start('/credential');
    expect(where(group.router)).toBe('/credential/cred/index');
  });

  it('lets /change-password through without the menu', async () => {
    saveSignedIn(signedInFixture({ must_change_password: true }));
    const { router, setup } = await start('/change-password');
    expect(where(router)).toBe('/change-password');
    expect(setup.isMenuLoaded()).toBe(false);
  });

  it('clears all storage when the menu cannot be built', async () => {
    localStorage.setItem(sessionKeys.token, 'token-1');
    localStorage.setItem(sessionKeys.userInfo, '{broken');
    localStorage.setItem('settings', '{}');
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { router } = await start('/console/dashboard');
    expect(localStorage.length).toBe(0);
    expect(where(router)).toBe('/login?redirect=%2Fconsole%2Fdashboard');
    expect(error).toHaveBeenCalled();
  });
});
