import { createBrowserRouter, redirect, type LoaderFunctionArgs, type RouteObject } from 'react-router';
import type { PatchRoutesOnNavigationFunction } from 'react-router';
import type { MenuItem } from '@ksp/contracts';
import { isHosted } from '../api/parent-window';
import { i18n, loadPageNamespaces } from '../i18n/i18n';
import { clearAllStorage, getSignedIn, getToken } from '../api/session';
import { loginPath, paths } from '../config/paths';
import { PageLoading } from '../components/page-loading';
import { decideNavigation } from './guard';
import { firstLeafPath, lazyPage, menuRoutes, profileRoutes } from './menu-routes';
import { NotFoundRedirect, RedirectView } from './redirect-view';
import { RootShell } from './root-shell';
import { RouteError } from './route-error';
import type { RouteHandle } from './route-handle';

export const ROOT_ROUTE_ID = 'root';
export const LAYOUT_ROUTE_ID = 'layout';

function titled(title: string): RouteHandle {
  return { title };
}

/** Routes that exist before the menu is known: the public ones and the password change. */
function staticRoutes(): RouteObject[] {
  return [
    {
      path: paths.login,
      lazy: lazyPage(() => import('../features/auth/login-page')),
      handle: titled('login'),
    },
    {
      path: paths.authRedirect,
      lazy: lazyPage(() => import('../features/auth/auth-redirect-page')),
      handle: titled('authRedirect'),
    },
    {
      path: paths.iframeInit,
      lazy: lazyPage(() => import('../features/auth/iframe-init-page')),
      handle: titled('iframeInit'),
    },
    {
      path: paths.systemActive,
      lazy: lazyPage(() => import('../features/system/system-active-page')),
      handle: titled('systemActive'),
    },
    {
      path: paths.userActive,
      lazy: lazyPage(() => import('../features/system/user-active-page')),
      handle: titled('userActive'),
    },
    {
      path: paths.signCert,
      // Public, yet its texts are in the certificates namespace (not in the login's bundle).
      lazy: async () => {
        const [page] = await Promise.all([
          import('../features/cert/sign-cert-page'),
          i18n.loadNamespaces('cert'),
        ]);
        return { Component: page.default };
      },
      handle: titled('signCert'),
    },
    {
      path: paths.remoteAdd,
      // Public, with a namespace of its own (not in the login's bundle).
      lazy: async () => {
        const [page] = await Promise.all([
          import('../features/remote-add/remote-add-page'),
          i18n.loadNamespaces('remoteAdd'),
        ]);
        return { Component: page.default };
      },
      handle: titled('remoteAdd'),
    },
    {
      path: paths.changePassword,
      lazy: lazyPage(() => import('../features/account/change-password-page')),
      handle: titled('changePassword'),
    },
    { path: '*', Component: NotFoundRedirect },
  ];
}

/** Routes of a signed-in user, built from the stored menu. */
export function signedInRoutes(menu: readonly MenuItem[]): RouteObject[] {
  return [
    {
      path: paths.notFound,
      lazy: lazyPage(() => import('../features/errors/not-found-page')),
      handle: titled('notFound'),
    },
    {
      path: paths.unauthorized,
      lazy: lazyPage(() => import('../features/errors/unauthorized-page')),
      handle: titled('unauthorized'),
    },
    {
      // The web SSH terminal: token required, outside the layout (a tab of its own, or embedded).
      path: paths.linuxSsh,
      lazy: async () => {
        const [page] = await Promise.all([
          import('../features/ssh-server/terminal-page'),
          i18n.loadNamespaces('sshServer'),
        ]);
        return { Component: page.default };
      },
      handle: titled('linuxSsh'),
    },
    {
      id: LAYOUT_ROUTE_ID,
      // The signed-in pages' namespaces come with the layout, so no page shows a missing text.
      lazy: async () => {
        const [{ AppLayout }] = await Promise.all([import('./layout/app-layout'), loadPageNamespaces()]);
        return { Component: AppLayout };
      },
      children: [
        { index: true, loader: () => redirect(firstLeafPath(menu) ?? paths.profile) },
        { path: `${paths.redirect}/*`, Component: RedirectView },
        ...profileRoutes(),
        ...menuRoutes(menu),
      ],
    },
  ];
}

export interface RouterSetup {
  routes: RouteObject[];
  patchRoutesOnNavigation: PatchRoutesOnNavigationFunction;
  isMenuLoaded: () => boolean;
}

/**
 * The guard lives in two places of the data router:
 * - `patchRoutesOnNavigation` runs first for any path the static routes do not match
 *   exactly; when the guard says "load-menu" it builds the routes of the stored menu,
 *   patches them in and React Router matches the path again (the retry);
 * - the root loader runs on every navigation and applies the redirects.
 */
export function routerSetup(): RouterSetup {
  let menuLoaded = false;

  const decide = (url: URL) =>
    decideNavigation({
      hasToken: Boolean(getToken()),
      menuLoaded,
      path: url.pathname,
      fullPath: url.pathname + url.search,
      embedded: isHosted(),
    });

  const patchRoutesOnNavigation: PatchRoutesOnNavigationFunction = ({ path, patch }) => {
    if (decide(new URL(path, window.location.origin)).kind !== 'load-menu') return;
    try {
      const stored = getSignedIn();
      if (!stored) throw new Error('No stored user info to build the menu from');
      patch(ROOT_ROUTE_ID, signedInRoutes(stored.menu));
      menuLoaded = true;
    } catch (error) {
      console.error('Building the menu failed', error);
      clearAllStorage();
    }
  };

  const guardLoader = ({ request }: LoaderFunctionArgs) => {
    const url = new URL(request.url);
    const decision = decide(url);
    if (decision.kind === 'redirect') throw redirect(decision.to);
    if (decision.kind === 'load-menu') {
      // patchRoutesOnNavigation ran first and could not build the menu.
      clearAllStorage();
      throw redirect(loginPath(url.pathname + url.search));
    }
    return null;
  };

  const routes: RouteObject[] = [
    {
      id: ROOT_ROUTE_ID,
      loader: guardLoader,
      shouldRevalidate: () => true,
      Component: RootShell,
      ErrorBoundary: RouteError,
      HydrateFallback: PageLoading,
      children: staticRoutes(),
    },
  ];

  return { routes, patchRoutesOnNavigation, isMenuLoaded: () => menuLoaded };
}

export function createAppRouter() {
  const setup = routerSetup();
  return createBrowserRouter(setup.routes, { patchRoutesOnNavigation: setup.patchRoutesOnNavigation });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
