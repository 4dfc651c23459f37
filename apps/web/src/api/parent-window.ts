import { consoleAreas, type ConsoleArea } from '@ksp/contracts';

/**
 * The console can run inside another page's iframe. These are the messages it posts to
 * that parent (structured-clone objects, target origin '*' since the parent is unknown;
 * they never carry a token):
 * - `{ type: 'request', url }` before each API call,
 * - `{ type: 'initToken' }` when it has no token and needs one,
 * - `{ type: 'tokenExpired' }` when the server says the session expired (code 4604).
 */
export type OutgoingMessage =
  { type: 'request'; url: string } | { type: 'initToken' } | { type: 'tokenExpired' };

export function isEmbedded(): boolean {
  try {
    return window.self !== window.top;
  } catch {
    // A cross-origin parent makes window.top unreadable in some browsers: still embedded.
    return true;
  }
}

export function postToParent(message: OutgoingMessage): void {
  window.parent.postMessage(message, '*');
}

/**
 * The window name the product page gives a sub-console it opens (an iframe's `name`, or the
 * target of `window.open`): `ksp-sub-<area>`. Such a window keeps its session apart from the
 * console's (api/session.ts) and asks the window that opened it for its token.
 */
export const SUB_CONSOLE_WINDOW_PREFIX = 'ksp-sub-';

/** The sub-console area this window was opened for by the product page, or null. */
export function subConsoleArea(target: Window = window): Exclude<ConsoleArea, 'console'> | null {
  const name = target.name;
  if (!name.startsWith(SUB_CONSOLE_WINDOW_PREFIX)) return null;
  const area = name.slice(SUB_CONSOLE_WINDOW_PREFIX.length);
  return area !== 'console' && Object.hasOwn(consoleAreas, area)
    ? (area as Exclude<ConsoleArea, 'console'>)
    : null;
}

/**
 * The window that hands this one its token: the parent page when embedded; for a sub-console
 * the product page opened in a new tab, the console window that opened it (while it is open).
 */
export function hostWindow(target: Window = window): Window | null {
  if (isEmbedded()) return target.parent;
  if (!subConsoleArea(target)) return null;
  const opener = target.opener as Window | null;
  return opener && !opener.closed ? opener : null;
}

/** The window waits for a token from a host (embedded, or a sub-console tab with its opener). */
export function isHosted(): boolean {
  return hostWindow() !== null;
}

/** Asks the host window for a token (`{type: 'initToken'}`). */
export function askHostForToken(): void {
  const host = hostWindow();
  if (!host) return;
  // An opener is the console itself: same origin only. A parent page may be any origin.
  host.postMessage(
    { type: 'initToken' } satisfies OutgoingMessage,
    isEmbedded() ? '*' : window.location.origin,
  );
}
