import type { TokenKind } from './call.js';
import { areaOf, type Area, type Permission } from './permissions.js';

/** One console area: the main console or a sub-console (docs/console.md#products-and-sub-consoles). */
export interface ConsoleAreaDef {
  /** Every route of the area starts with this path. */
  path: `/${string}`;
  /** The top-bar title: a key of the console's `layout` catalogue. */
  title: `area.${string}`;
  /** The kind of token the area signs in with: `session` until it has a token of its own. */
  token: TokenKind;
  /** The permission that opens the area; null: any signed-in user. */
  permission: Permission | null;
}

/**
 * The console and its sub-consoles. The top bar, the menu, the session service (what a
 * sub-console token may do) and the token calls read this table.
 */
export const consoleAreas = {
  console: { path: '/console', title: 'area.console', token: 'session', permission: null },
  cte: { path: '/cte', title: 'area.cte', token: 'cte', permission: 'cte:read' },
  rdm: { path: '/rdm', title: 'area.rdm', token: 'rdm', permission: 'rdm:read' },
  kadp: { path: '/kadp', title: 'area.kadp', token: 'kadp', permission: 'kadp:read' },
  credential: { path: '/credential', title: 'area.credential', token: 'sms', permission: 'credential:read' },
  kms: { path: '/kms', title: 'area.kms', token: 'kms', permission: 'key:read' },
} as const satisfies Record<string, ConsoleAreaDef>;

export type ConsoleArea = keyof typeof consoleAreas;
const consoleAreaIds = Object.keys(consoleAreas) as ConsoleArea[];

/** A token kind that belongs to one sub-console (not a console session, not an app token). */
export type SubConsoleTokenKind = Exclude<(typeof consoleAreas)[ConsoleArea]['token'], 'session'>;

/** The area a console path belongs to: by its first segment, the main console by default. */
export function consoleAreaOf(pathname: string): ConsoleArea {
  const first = `/${pathname.split('/')[1] ?? ''}`;
  return consoleAreaIds.find((id) => consoleAreas[id].path === first) ?? 'console';
}

/**
 * The permission area a token of this kind is limited to: its sub-console's own (a KADP
 * token carries `kadp:*` only); undefined for console sessions and application tokens.
 */
export function permissionAreaOfToken(kind: TokenKind): Area | undefined {
  if (kind === 'session') return undefined;
  const owner = consoleAreaIds.find((id) => consoleAreas[id].token === kind);
  const permission = owner ? consoleAreas[owner].permission : null;
  return permission ? (areaOf(permission) as Area) : undefined;
}
