import { configureClient } from '../api/client-environment';
import { hostWindow, isEmbedded } from '../api/parent-window';
import { fetchSystemStatus } from '../api/system';
import { loadUserInfo } from '../api/user';
import { paths, setupPath } from '../config/paths';
import { listenToParent } from './embedding';
import type { AppRouter } from './router';

/** Connects the HTTP client's page-level reactions (5030, 4003) and the parent-page messages to the router. */
export function wireApp(router: AppRouter): void {
  let checking = false;
  configureClient({
    onNotReady: () => {
      if (checking) return;
      checking = true;
      fetchSystemStatus()
        .then((status) => {
          const target = setupPath(status);
          if (target && router.state.location.pathname !== target) void router.navigate(target);
        })
        .catch(() => undefined)
        .finally(() => {
          checking = false;
        });
    },
    onPasswordChangeRequired: () => {
      // The server demands it (4003): the page says so even when the stored user info is older.
      if (router.state.location.pathname !== paths.changePassword)
        void router.navigate(paths.changePassword, { state: { forced: true } });
    },
  });

  const host = hostWindow();
  if (host) {
    listenToParent(
      {
        currentPath: () => router.state.location.pathname,
        navigate: (path) => void router.navigate(path),
        loadPage: (path) => window.location.replace(path),
        reload: () => window.location.reload(),
        loadUserInfo,
      },
      window,
      // A sub-console tab trusts its opener only when it is the console itself (same origin).
      { host, origin: isEmbedded() ? null : window.location.origin },
    );
  }
}
