import { paths } from '../config/paths';
import { clearAllStorage, setToken } from '../api/session';

/**
 * Messages a parent page sends to the embedded console, as objects or JSON strings:
 * `{ type: 'refreshToken', token }` signs it in, `{ type: 'cleanToken' }` signs it out.
 */
export type ParentMessage = Record<string, unknown> & { type?: unknown };

/** The message as an object, or null (logged as 'Invalid JSON') when it is not one. */
export function parseParentMessage(data: unknown): ParentMessage | null {
  let value: unknown = data;
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data);
    } catch {
      console.error('Invalid JSON');
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    console.error('Invalid JSON');
    return null;
  }
  return value as ParentMessage;
}

export interface EmbeddingActions {
  currentPath: () => string;
  /** In-app navigation. */
  navigate: (path: string) => void;
  /** A full page load of `path` (drops the routes built from the previous session). */
  loadPage: (path: string) => void;
  reload: () => void;
  loadUserInfo: () => Promise<void>;
}

export async function handleParentMessage(data: unknown, actions: EmbeddingActions): Promise<void> {
  const message = parseParentMessage(data);
  if (!message) return;
  if (message.type === 'refreshToken') {
    if (typeof message.token !== 'string' || message.token === '') return;
    setToken(message.token);
    await actions.loadUserInfo();
    if (actions.currentPath() === paths.iframeInit) actions.navigate(paths.root);
    else actions.reload();
  } else if (message.type === 'cleanToken') {
    clearAllStorage();
    actions.loadPage(paths.iframeInit);
  }
}

/**
 * Listens to the host's messages: the parent page when embedded (from it only), or the console
 * window that opened a sub-console tab (from it only, and from `origin` when given).
 */
export function listenToParent(
  actions: EmbeddingActions,
  target: Window = window,
  from: { host: Window; origin: string | null } = { host: target.parent, origin: null },
): () => void {
  const onMessage = (event: MessageEvent) => {
    if (event.source !== from.host) return;
    if (from.origin !== null && event.origin !== from.origin) return;
    void handleParentMessage(event.data, actions).catch(() => undefined);
  };
  target.addEventListener('message', onMessage);
  return () => target.removeEventListener('message', onMessage);
}
