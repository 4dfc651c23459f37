import { api, consoleAreas, type ProductTile } from '@ksp/contracts';
import { call } from '../../api/client';
import { SUB_CONSOLE_WINDOW_PREFIX } from '../../api/parent-window';
import { parseParentMessage } from '../../app/embedding';

export type SubConsoleArea = ProductTile['area'];

/** The token call of each sub-console: a token scoped to it (never the console's session). */
const tokenCalls = {
  cte: api.user.tdeToken,
  kadp: api.user.kadpToken,
  kms: api.user.kmsToken,
  rdm: api.user.rdmToken,
  credential: api.user.ssmToken,
} as const satisfies Record<SubConsoleArea, unknown>;

/** The name a sub-console window gets (its session and its host follow from it: api/parent-window.ts). */
export const subConsoleWindowName = (area: SubConsoleArea) => `${SUB_CONSOLE_WINDOW_PREFIX}${area}`;

/** Where a sub-console window starts: it asks for its token there, then goes to its first page. */
export const SUB_CONSOLE_START = '/iframe-init';

/** The sub-console path, for display (the top-bar title follows from it). */
export const subConsolePath = (area: SubConsoleArea) => consoleAreas[area].path;

const children = new Map<Window, SubConsoleArea>();
let listening = false;

/**
 * The console's half of the embedding protocol (docs/console.md#embedding), for the windows
 * the product page opened: a window that asks `{type:'initToken'}` (or says `tokenExpired`) gets
 * `{type:'refreshToken', token}` with a fresh token of its own sub-console. Only a window this
 * page opened, of this origin, is answered, and only to this origin.
 */
export async function answerSubConsole(event: MessageEvent, self: Window = window): Promise<boolean> {
  const child = event.source as Window | null;
  const area = child ? children.get(child) : undefined;
  if (!child || !area || event.origin !== self.location.origin) return false;
  const message = parseParentMessage(event.data);
  if (!message || (message.type !== 'initToken' && message.type !== 'tokenExpired')) return false;
  const { token } = await call(tokenCalls[area], { body: {} });
  child.postMessage({ type: 'refreshToken', token }, self.location.origin);
  return true;
}

/** Answers `child`'s token requests for `area` from now on (while this console page lives). */
export function hostSubConsole(child: Window, area: SubConsoleArea, self: Window = window): void {
  children.set(child, area);
  for (const known of children.keys()) if (known !== child && known.closed) children.delete(known);
  if (listening) return;
  listening = true;
  self.addEventListener('message', (event) => {
    void answerSubConsole(event, self).catch(() => undefined);
  });
}

/** Stops answering a window (an embedded frame that was closed). */
export function forgetSubConsole(child: Window): void {
  children.delete(child);
}

/** Opens a sub-console in a new tab; false when the browser blocked it. */
export function openSubConsoleTab(area: SubConsoleArea, self: Window = window): boolean {
  const child = self.open(SUB_CONSOLE_START, subConsoleWindowName(area));
  if (!child) return false;
  hostSubConsole(child, area, self);
  return true;
}
