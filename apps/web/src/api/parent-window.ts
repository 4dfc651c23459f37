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
