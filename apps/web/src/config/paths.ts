/** Every fixed route path of the console, in one table (menu routes come from the server). */
export const paths = {
  root: '/',
  login: '/login',
  signCert: '/sign-cert',
  authRedirect: '/auth-redirect',
  remoteAdd: '/remote-add',
  systemActive: '/system-active',
  userActive: '/user-active',
  iframeInit: '/iframe-init',
  changePassword: '/change-password',
  redirect: '/redirect',
  notFound: '/404',
  unauthorized: '/401',
  linuxSsh: '/linux-ssh',
  profileRoot: '/console/user-setting',
  profile: '/console/user-setting/index',
  /** The log page (a menu route); `?tab=alarms` opens its alarms. */
  log: '/console/log',
} as const;

/** The log page on its alarms tab (the dashboard's alarm card links here). */
export const alarmsPath = `${paths.log}?tab=alarms`;

/** Routes reachable without a token (docs/console.md#routes). */
export const publicPaths: readonly string[] = [
  paths.login,
  paths.signCert,
  paths.authRedirect,
  paths.remoteAdd,
  paths.systemActive,
  paths.userActive,
  paths.iframeInit,
];

/** Routes that work without the menu routes: the public ones and the forced password change. */
export const menuExemptPaths: readonly string[] = [...publicPaths, paths.changePassword];

/** /login, keeping the wanted path (with its query) for after the login. */
export function loginPath(redirect?: string): string {
  if (!redirect || redirect === paths.root) return paths.login;
  return `${paths.login}?redirect=${encodeURIComponent(redirect)}`;
}

/** The path that re-renders `fullPath` from scratch (used to refresh a view). */
export function redirectPath(fullPath: string): string {
  return `${paths.redirect}${fullPath.startsWith('/') ? '' : '/'}${fullPath}`;
}

/** Only same-site absolute paths are followed after a login (no open redirect). */
export function safeRedirect(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) {
    return paths.root;
  }
  return value;
}

/** Where an unready system sends the user (5030): initialization, then activation; null when ready. */
export function setupPath(status: { initialized: boolean; activated: boolean }): string | null {
  if (!status.initialized) return paths.systemActive;
  if (!status.activated) return paths.userActive;
  return null;
}
