import { useMemo, useSyncExternalStore } from 'react';
import type { DataOf, api } from '@ksp/contracts';
import { SUB_CONSOLE_WINDOW_PREFIX, subConsoleArea } from './parent-window';

/** What a login, Ukey verification or domain switch answers: stored whole (docs/console.md#session). */
export type SignedIn = DataOf<typeof api.user.login>;
export type UserInfo = SignedIn['userinfo'];

/** localStorage keys: one each for the token, the user info, the user name and tokenTime. */
export const sessionKeys = {
  token: 'token',
  userInfo: 'userInfo',
  name: 'name',
  tokenTime: 'tokenTime',
} as const;

/**
 * Where the session lives: localStorage for the console; for a sub-console window the product
 * page opened (embedded or in a tab), that window's sessionStorage under keys of its own
 * (`ksp-sub-<area>:token`...), so that its scoped token never replaces the console's session
 * (a same-origin iframe and tab share the console's localStorage).
 */
function store(): Storage {
  return subConsoleArea() ? sessionStorage : localStorage;
}
function keyOf(key: string): string {
  const area = subConsoleArea();
  return area ? `${SUB_CONSOLE_WINDOW_PREFIX}${area}:${key}` : key;
}
const read = (key: string) => store().getItem(keyOf(key));
const write = (key: string, value: string) => store().setItem(keyOf(key), value);
const remove = (key: string) => store().removeItem(keyOf(key));

const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function onStorage(event: StorageEvent): void {
  if (event.key === null || Object.values<string>(sessionKeys).some((key) => keyOf(key) === event.key))
    notify();
}

export function subscribeSession(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener('storage', onStorage);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('storage', onStorage);
  };
}

export function getToken(): string | null {
  return read(sessionKeys.token);
}

/** Milliseconds of the last login or refresh; 0 when unknown. */
export function getTokenTime(): number {
  const value = Number(read(sessionKeys.tokenTime));
  return Number.isFinite(value) ? value : 0;
}

function isSignedIn(value: unknown): value is SignedIn {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const info = record.userinfo;
  return (
    typeof info === 'object' &&
    info !== null &&
    typeof (info as Record<string, unknown>).name === 'string' &&
    Array.isArray(record.menu)
  );
}

export function parseSignedIn(raw: string | null): SignedIn | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return isSignedIn(value) ? value : null;
  } catch {
    return null;
  }
}

export function getSignedIn(): SignedIn | null {
  return parseSignedIn(read(sessionKeys.userInfo));
}

/** A new token (login, refresh, password change, parent page): tokenTime restarts. */
export function setToken(token: string, now = Date.now()): void {
  write(sessionKeys.token, token);
  write(sessionKeys.tokenTime, String(now));
  const stored = getSignedIn();
  if (stored && stored.token !== token) {
    write(sessionKeys.userInfo, JSON.stringify({ ...stored, token }));
  }
  notify();
}

/** Stores the whole login answer (token, userinfo, menu). */
export function saveSignedIn(data: SignedIn, now = Date.now()): void {
  write(sessionKeys.token, data.token);
  write(sessionKeys.tokenTime, String(now));
  write(sessionKeys.userInfo, JSON.stringify(data));
  write(sessionKeys.name, data.userinfo.name);
  notify();
}

/** Fresh user info and menu for the current token (user/info answers without a token). */
export function saveUserInfo(data: Omit<SignedIn, 'token'>): void {
  const token = getToken() ?? '';
  write(sessionKeys.userInfo, JSON.stringify({ ...data, token }));
  write(sessionKeys.name, data.userinfo.name);
  notify();
}

export function clearToken(): void {
  remove(sessionKeys.token);
  remove(sessionKeys.tokenTime);
  notify();
}

/** Logout: token, name and user info go (open tabs are dropped by the layout). */
export function clearSession(): void {
  for (const key of Object.values(sessionKeys)) remove(key);
  notify();
}

/** A failed menu build leaves nothing behind (docs/console.md#session). */
export function clearAllStorage(): void {
  // A sub-console window clears its own keys only, never the console's session.
  if (subConsoleArea()) for (const key of Object.values(sessionKeys)) remove(key);
  else localStorage.clear();
  notify();
}

export function useToken(): string | null {
  return useSyncExternalStore(subscribeSession, getToken);
}

/** The stored login data, re-read whenever the session changes. */
export function useSignedIn(): SignedIn | null {
  const raw = useSyncExternalStore(subscribeSession, () => read(sessionKeys.userInfo));
  return useMemo(() => parseSignedIn(raw), [raw]);
}
