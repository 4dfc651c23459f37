import { loginPath, menuExemptPaths, paths, publicPaths } from '../config/paths';

export interface GuardInput {
  hasToken: boolean;
  /** Whether the routes of the stored menu are in the router yet. */
  menuLoaded: boolean;
  /** Path name of the wanted location. */
  path: string;
  /** Path name plus query, kept in the login redirect. */
  fullPath: string;
  embedded: boolean;
}

export type GuardDecision = { kind: 'allow' } | { kind: 'redirect'; to: string } | { kind: 'load-menu' };

function normalize(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function inList(list: readonly string[], path: string): boolean {
  const p = normalize(path);
  return list.some((entry) => p === entry || p.startsWith(`${entry}/`));
}

export function isPublicPath(path: string): boolean {
  return inList(publicPaths, path);
}

export function isMenuExempt(path: string): boolean {
  return inList(menuExemptPaths, path);
}

/**
 * The navigation guard (docs/console.md#navigation-guard):
 * 1. with a token, /login goes to /;
 * 2. with a token and no menu routes yet, the menu is built and the navigation retried;
 * 3. without a token a public route is allowed; otherwise an embedded page goes to
 *    /iframe-init and a standalone one to /login?redirect=<wanted path>.
 */
export function decideNavigation({
  hasToken,
  menuLoaded,
  path,
  fullPath,
  embedded,
}: GuardInput): GuardDecision {
  if (hasToken) {
    if (normalize(path) === paths.login) return { kind: 'redirect', to: paths.root };
    if (!menuLoaded && !isMenuExempt(path)) return { kind: 'load-menu' };
    return { kind: 'allow' };
  }
  if (isPublicPath(path)) return { kind: 'allow' };
  if (embedded) return { kind: 'redirect', to: paths.iframeInit };
  return { kind: 'redirect', to: loginPath(fullPath) };
}
