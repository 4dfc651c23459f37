import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  Code,
  effectivePermissions,
  ipAllowed,
  permissionAreaOfToken,
  ROOT_DOMAIN,
  tokenKinds,
  type TokenKind,
} from '@ksp/contracts';
import type { Db, Executor } from '../db/database.js';
import { createFreshCache } from '../fresh-cache.js';
import { KspError, UnauthorizedError } from '../errors.js';
import type { Actor, RequestMeta } from '../http/route.js';
import {
  countActiveSessions,
  deleteSession,
  deleteSessionsOfUser,
  moveChildSessions,
  findSessionByHash,
  insertSession,
  purgeSessions,
  touchSession,
} from './session.store.js';

export interface SessionSettings {
  idleSeconds: number;
  maxSeconds: number;
}

export type Clock = () => Date;

/** How a token kind is stored (`session.scope`): console sessions predate the other kinds. */
const storedKind = (kind: TokenKind) => (kind === 'session' ? 'console' : kind);
const kindOf = (stored: string): TokenKind =>
  stored === 'console'
    ? 'session'
    : (tokenKinds.find((kind) => kind !== 'session' && kind === stored) ?? 'app');

/** Throttle for last-seen writes: an active session is written at most this often. */
const TOUCH_EVERY_MS = 15_000;

/**
 * How long a node trusts what it read about a session (user, domain, permissions) before
 * reading it again. Changes made through this node take effect at once (`forget`); changes
 * made on another node of a cluster take effect here within this time.
 */
const SESSION_CACHE_MS = 1000;
const SESSION_CACHE_SIZE = 10_000;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

type SessionRow = NonNullable<Awaited<ReturnType<typeof findSessionByHash>>>;
interface CachedSession {
  row: SessionRow;
  whitelist: string[];
  held: Set<string>;
  /** `held` as it applies in the session's domain, computed once per cache entry. */
  effective?: Set<string>;
  lastSeen: number;
}

/**
 * Opaque 256-bit tokens; the database keeps only their SHA-256. A session ends after
 * `idleSeconds` without a call, or `maxSeconds` after login (refresh and domain switch
 * keep the original login time), and at logout or password change.
 */
export function createSessionService(deps: {
  db: Db;
  settings: SessionSettings;
  clock: Clock;
  permissionsOf: (db: Executor, userId: string) => Promise<Set<string>>;
  /** The permissions of one role (an app secret's), or null when it no longer exists. */
  rolePermissions: (db: Executor, roleId: string) => Promise<Set<string> | null>;
}) {
  const { db, settings, clock } = deps;

  async function issue(
    trx: Executor,
    args: {
      userId: string;
      domainId: string;
      ip: string;
      loginAt?: string;
      kind?: TokenKind;
      /** The console session a sub-console token is handed out from: it ends with it. */
      parentId?: string | null;
    },
  ): Promise<{ token: string; sessionId: string }> {
    const token = randomBytes(32).toString('base64url');
    const now = clock().toISOString();
    const sessionId = randomUUID();
    await insertSession(trx, {
      id: sessionId,
      token_hash: hashToken(token),
      user_id: args.userId,
      domain_id: args.domainId,
      login_at: args.loginAt ?? now,
      last_seen_at: now,
      source_ip: args.ip,
      scope: storedKind(args.kind ?? 'session'),
      parent_id: args.parentId ?? null,
    });
    return { token, sessionId };
  }

  /**
   * What a token may do before the domain is considered: its user's roles, narrowed to an
   * app secret's role for application tokens and to one area for sub-console tokens.
   */
  async function heldBy(row: SessionRow): Promise<Set<string>> {
    const held = await deps.permissionsOf(db, row.user_id);
    const kind = kindOf(row.scope);
    if (kind === 'app' && row.app_role_id) {
      const chosen = (await deps.rolePermissions(db, row.app_role_id)) ?? new Set<string>();
      return new Set([...held].filter((p) => chosen.has(p)));
    }
    // A sub-console token only carries the permissions of its own area.
    const area = permissionAreaOfToken(kind);
    return area ? new Set([...held].filter((p) => p.startsWith(`${area}:`))) : held;
  }

  /**
   * The session behind a token hash: from this node's cache while fresh, else from the
   * database; a session in use is read again in the background before its entry expires, and
   * callers that miss together share one read (`platform/fresh-cache.ts`).
   */
  const cache = createFreshCache<CachedSession>({
    ttlMs: SESSION_CACHE_MS,
    size: SESSION_CACHE_SIZE,
    now: () => clock().getTime(),
    async read(tokenHash, previous) {
      const row = await findSessionByHash(db, tokenHash);
      if (!row) return undefined;
      const lastSeen = Date.parse(row.last_seen_at);
      return {
        row,
        whitelist: JSON.parse(row.ip_whitelist) as string[],
        held: await heldBy(row),
        // A touch this node made may not be in the row it read yet.
        lastSeen: previous ? Math.max(previous.lastSeen, lastSeen) : lastSeen,
      };
    },
    dispose(old, next) {
      if (next) next.lastSeen = Math.max(next.lastSeen, old.lastSeen);
    },
  });

  async function authenticate(token: string, meta: RequestMeta): Promise<Actor> {
    if (token.length > 128) throw new UnauthorizedError('auth.tokenInvalid');
    const now = clock().getTime();
    const entry = await cache.get(hashToken(token));
    if (!entry) throw new UnauthorizedError('auth.tokenInvalid');
    const { row, held } = entry;
    if (
      now - entry.lastSeen > settings.idleSeconds * 1000 ||
      now - Date.parse(row.login_at) > settings.maxSeconds * 1000
    ) {
      throw new KspError(Code.SESSION_EXPIRED, 'auth.sessionExpired');
    }
    if (!ipAllowed(meta.ip, entry.whitelist)) {
      throw new KspError(Code.IP_NOT_ALLOWED, 'auth.ipNotAllowed', { ip: meta.ip });
    }
    if (now - entry.lastSeen > TOUCH_EVERY_MS) {
      entry.lastSeen = now;
      await touchSession(db, row.session_id, new Date(now).toISOString());
    }
    const systemScope = row.domain_name === ROOT_DOMAIN;
    return {
      userId: row.user_id,
      username: row.username,
      domainId: row.domain_id,
      domainName: row.domain_name,
      sessionId: row.session_id,
      permissions: entry.effective ?? (entry.effective = effectivePermissions(held, systemScope)),
      kind: kindOf(row.scope),
      systemScope,
      mustChangePassword: row.must_change_password === 1,
      directory: row.directory,
    };
  }

  /**
   * Whether a session is still alive: not ended (logout, refresh, domain switch, password
   * change, removal from its domain) nor expired. Read from the database, so an end made on
   * another node of a cluster counts at once. For what is bound to a session (terminal tickets).
   */
  async function isAlive(sessionId: string): Promise<boolean> {
    const row = await db
      .selectFrom('session')
      .select(['login_at', 'last_seen_at'])
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (!row) return false;
    const now = clock().getTime();
    return (
      now - Date.parse(row.last_seen_at) <= settings.idleSeconds * 1000 &&
      now - Date.parse(row.login_at) <= settings.maxSeconds * 1000
    );
  }

  /** Ends the user's sessions bound to one domain (removed from it). */
  async function revokeInDomain(trx: Executor, userIds: string[], domainId: string): Promise<void> {
    await trx
      .deleteFrom('session')
      .where('user_id', 'in', userIds)
      .where('domain_id', '=', domainId)
      .execute();
  }

  /**
   * What a refresh or a domain switch must carry over: the login time, the token kind, and the
   * console session a sub-console token belongs to.
   */
  async function originOf(
    sessionId: string,
  ): Promise<{ loginAt: string; kind: TokenKind; parentId: string | null }> {
    const row = await db
      .selectFrom('session')
      .select(['login_at', 'scope', 'parent_id'])
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (!row) throw new UnauthorizedError('auth.tokenInvalid');
    return { loginAt: row.login_at, kind: kindOf(row.scope), parentId: row.parent_id ?? null };
  }

  async function purgeExpired(): Promise<void> {
    const now = clock().getTime();
    const day = 86_400_000;
    await purgeSessions(
      db,
      new Date(now - settings.idleSeconds * 1000 - day).toISOString(),
      new Date(now - settings.maxSeconds * 1000 - day).toISOString(),
    );
  }

  /** Sessions still alive: all of them, or those bound to one domain. */
  async function countActive(domainId: string | null = null): Promise<number> {
    const now = clock().getTime();
    return countActiveSessions(
      db,
      new Date(now - settings.idleSeconds * 1000).toISOString(),
      new Date(now - settings.maxSeconds * 1000).toISOString(),
      domainId,
    );
  }

  /**
   * Drops what this node remembers of every session. The HTTP layer calls it after each
   * change that can touch sessions, users, roles or domains, before answering.
   */
  function forget(): void {
    cache.forget();
  }

  return {
    settings,
    forget,
    issue,
    authenticate,
    isAlive,
    originOf,
    /** Ends the session and the sub-console tokens handed out from it. */
    revoke: (trx: Executor, sessionId: string) => deleteSession(trx, sessionId),
    /** Hands a session's sub-console tokens to its successor (refresh). */
    moveChildren: (trx: Executor, from: string, to: string) => moveChildSessions(trx, from, to),
    revokeAllOfUser: (trx: Executor, userId: string) => deleteSessionsOfUser(trx, userId),
    revokeInDomain,
    purgeExpired,
    countActive,
    /** Stops the cache's sweeper (server shutdown). */
    close: () => cache.close(),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
