import { randomUUID } from 'node:crypto';
import {
  buildMenu,
  Code,
  consoleAreas,
  effectivePermissions,
  ROOT_DOMAIN,
  formatMessage,
  ipAllowed,
  menuModel,
  type Language,
  type MenuItem,
  type MenuNode,
  type TokenKind,
  isDirectoryUsername,
  splitDirectoryUsername,
} from '@ksp/contracts';
import type { z } from 'zod';
import type { UserInfo } from '@ksp/contracts';
import { auditTypedName, type AuditWriter } from '../../platform/audit.js';
import { clientHash, hashPassword, verifyPassword } from '../../platform/auth/password.js';
import { checkPassword } from '../../platform/auth/password-policy.js';
import type { Clock, SessionService } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { KspError, conflict, forbidden, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  grantRole,
  putMfaPending,
  existingUserIds,
  findUserById,
  findUserByName,
  insertUser,
  recordLoginFailure,
  recordLoginSuccess,
  updateUser,
} from './user.store.js';

type UserInfoT = z.infer<typeof UserInfo>;
export interface SignedIn {
  token: string;
  userinfo: UserInfoT;
  menu: MenuItem[];
}

const LOCK_MINUTES = 30;

/** Signs a directory user in; answers the local user id, or why it refused. */
export interface DirectoryLogin {
  authenticate(
    connection: string,
    username: string,
    password: string,
  ): Promise<{ userId: string } | { refused: string }>;
}

/** Sign-in, the session's user, password and e-mail of the signed-in user. */
/** The record of a successful sign-in: the user, in the domain they signed in to. */
export async function auditSignedIn(
  audit: AuditWriter,
  trx: Executor,
  user: { id: string; username: string },
  domain: { id: string; name: string },
  ip: string,
  action: 'user.login' | 'user.app-login',
): Promise<void> {
  await audit.write(trx, {
    who: { userId: user.id, username: user.username, domainId: domain.id, domainName: domain.name },
    action,
    target: user.username,
    result: 'success',
    ip,
  });
}

export function createUserService(deps: {
  db: Db;
  sessions: SessionService;
  clock: Clock;
  audit: AuditWriter;
  directory?: DirectoryLogin;
  config: ModuleServices['config'];
  /** The scrypt cost new password hashes are stored at (KspConfig.passwordCost). */
  passwordCost: number;
  passwordPolicy: ModuleServices['passwordPolicy'];
  domains: ModuleServices['domains'];
  roles: ModuleServices['roles'];
}) {
  const { db, sessions, clock, audit } = deps;
  const { currentPolicy } = deps.passwordPolicy;
  const { addMember, assertAddable, assertMembershipReach, domainsOfUser, findDomainById, findDomainByName } =
    deps.domains;
  const { rolesOfUser } = deps.roles;

  async function assertPasswordAllowed(password: string, lang: Language): Promise<void> {
    const policy = await currentPolicy(db);
    const broken = checkPassword(password, policy);
    if (broken.length > 0) {
      const rules = broken
        .map((b) => formatMessage(`password.rule.${b.rule}`, lang, { n: b.limit }))
        .join(lang === 'zh' ? '；' : '; ');
      throw invalid('password.rules', { rules });
    }
  }

  /** Creates a local user with a policy-checked password (the caller holds the transaction). */
  async function createLocalUser(
    trx: Executor,
    args: { username: string; password: string; email: string; domainIds: string[]; roleIds: string[] },
  ): Promise<string> {
    if (isDirectoryUsername(args.username)) throw invalid('user.usernameSlash');
    if (await findUserByName(trx, args.username)) throw conflict('user.nameTaken', { name: args.username });
    const now = clock().toISOString();
    const id = randomUUID();
    await insertUser(trx, {
      id,
      username: args.username,
      email: args.email,
      password_hash: await hashPassword(clientHash(args.password), deps.passwordCost),
      directory: null,
      password_changed_at: now,
      at: now,
    });
    for (const domainId of args.domainIds) await addMember(trx, id, domainId);
    for (const roleId of args.roleIds) await grantRole(trx, id, roleId);
    return id;
  }

  /**
   * The menu model a token kind sees: a sub-console token only its own area's pages (a KMS
   * token's key:* would also open the main console's key page otherwise).
   */
  function menuOfKind(kind: TokenKind): MenuNode[] {
    const owner = Object.values(consoleAreas).find((def) => def.token !== 'session' && def.token === kind);
    if (!owner) return menuModel;
    return menuModel.filter((node) => node.path === owner.path || node.path.startsWith(`${owner.path}/`));
  }

  /**
   * The signed-in user and the menu. `granted`: what the session may do (a scoped token's
   * narrowed set); without it, a console session's permissions in that domain.
   */
  async function describe(
    userId: string,
    domainName: string,
    granted?: ReadonlySet<string>,
    kind: TokenKind = 'session',
  ): Promise<{ userinfo: UserInfoT; menu: MenuItem[] }> {
    const user = await findUserById(db, userId);
    if (!user) throw notFound('user.notFound', { id: userId });
    const [domains, roles] = await Promise.all([domainsOfUser(db, userId), rolesOfUser(db, userId)]);
    const permissions =
      granted ??
      effectivePermissions(new Set(roles.flatMap((r) => r.permissions)), domainName === ROOT_DOMAIN);
    const { idleSeconds, maxSeconds } = sessions.settings;
    return {
      userinfo: {
        id: user.id,
        name: user.username,
        email: user.email,
        domain: domainName,
        domains: domains.map((d) => d.name),
        has_domains: domains.length > 1,
        roles: roles.map((r) => r.name),
        permissions: [...permissions].sort(),
        directory: user.directory,
        must_change_password: user.must_change_password === 1,
        last_login_at: user.last_login_at,
        ukey_bound: Boolean(user.ukey_cert),
        ukey_serial: user.ukey_serial,
        session: {
          idle_seconds: idleSeconds,
          max_seconds: maxSeconds,
          refresh_seconds: Math.max(30, Math.floor(idleSeconds / 2)),
        },
      },
      menu: buildMenu(menuOfKind(kind), permissions),
    };
  }

  /**
   * A refused sign-in, audited as a failed `user.login` with its reason: under the account
   * when one matched, else under the name as typed (decoded from the console's Base64, made
   * safe by `auditTypedName`) as both its target and its user, so a search for the name finds it.
   */
  async function auditRefusedLogin(
    meta: RequestMeta,
    reason: string,
    who: { id: string; username: string } | string,
  ): Promise<void> {
    const name = typeof who === 'string' ? auditTypedName(who) : who.username;
    await audit.write(db, {
      who: {
        userId: typeof who === 'string' ? null : who.id,
        username: name,
        domainId: null,
        domainName: '',
      },
      action: 'user.login',
      target: name,
      result: 'failure',
      ip: meta.ip,
      details: { reason },
    });
  }

  /** One failed sign-in under the password policy's lockout; null when already locked. */
  async function countFailure(userId: string, now: Date) {
    const policy = await currentPolicy(db);
    const lock =
      policy.lockout_disabled === 0 && policy.max_failed_attempts > 0
        ? {
            after: policy.max_failed_attempts,
            until: new Date(now.getTime() + LOCK_MINUTES * 60_000).toISOString(),
          }
        : null;
    return recordLoginFailure(db, userId, now.toISOString(), lock);
  }

  function decodeLocalUsername(encoded: string): string | null {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
    const text = Buffer.from(encoded, 'base64').toString('utf8');
    if (Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, ''))
      return null;
    return text.trim();
  }

  async function login(body: { username: string; password: string }, meta: RequestMeta): Promise<SignedIn> {
    const typed = body.username.trim();
    const failure = async (who: { id: string; username: string } | null, reason: string) => {
      await auditRefusedLogin(meta, reason, who ?? typed);
      return new KspError(Code.BAD_CREDENTIALS, 'auth.badCredentials');
    };
    const directoryUser = splitDirectoryUsername(typed);
    if (directoryUser) {
      // Directory user: "<connection>/<user>", both sent as typed; the directory decides.
      const outcome = deps.directory
        ? await deps.directory.authenticate(directoryUser.connection, directoryUser.user, body.password)
        : { refused: 'no directory' };
      if ('refused' in outcome) throw await failure(null, outcome.refused);
      const dirUser = await findUserById(db, outcome.userId);
      if (!dirUser) throw await failure(null, 'directory user vanished');
      return completeLogin(dirUser, meta, { passwordChecked: true });
    }
    const username = decodeLocalUsername(typed);
    const user = username ? await findUserByName(db, username) : undefined;
    const ok = await verifyPassword(body.password, user?.password_hash ?? null, deps.passwordCost);
    // Recorded under the name decoded (what the user typed), or as sent when it is not Base64.
    if (!user) {
      await auditRefusedLogin(
        meta,
        username === null ? 'unknown user (not Base64)' : 'unknown user',
        username ?? typed,
      );
      throw new KspError(Code.BAD_CREDENTIALS, 'auth.badCredentials');
    }
    const now = clock();
    const lockedOut = async () => {
      await auditRefusedLogin(meta, 'locked', user);
      const fresh = await findUserById(db, user.id);
      return new KspError(Code.ACCOUNT_LOCKED, 'auth.accountLocked', { until: fresh?.locked_until ?? '' });
    };
    if (!ok) {
      // Counted and decided in one statement after the hash check: parallel guesses cannot
      // all read the same count and slip past the lockout.
      const counted = await countFailure(user.id, now);
      if (!counted) throw await lockedOut();
      throw await failure(user, counted.lockedUntil ? 'bad password, account locked' : 'bad password');
    }
    if (user.locked_until && Date.parse(user.locked_until) > now.getTime()) throw await lockedOut();
    return completeLogin(user, meta, { passwordChecked: true });
  }

  /**
   * What follows a right password (or a verified directory bind): the IP whitelist, the
   * second factor when MFA is on, password expiry, then the session.
   */
  async function completeLogin(
    user: NonNullable<Awaited<ReturnType<typeof findUserByName>>>,
    meta: RequestMeta,
    how: { passwordChecked: boolean; secondFactorDone?: boolean },
  ): Promise<SignedIn> {
    const now = clock();
    if (!ipAllowed(meta.ip, JSON.parse(user.ip_whitelist) as string[])) {
      await auditRefusedLogin(meta, 'address not in whitelist', user);
      throw new KspError(Code.IP_NOT_ALLOWED, 'auth.ipNotAllowed', { ip: meta.ip });
    }
    if (how.passwordChecked && !how.secondFactorDone && (await deps.config.value('MFA')) === '1') {
      // Password right, second factor still due: no token (the console runs the Ukey login).
      await putMfaPending(db, {
        user_id: user.id,
        password_ok_at: now.toISOString(),
        challenge: null,
        challenge_expires_at: null,
        source_ip: meta.ip,
      });
      throw new KspError(Code.UKEY_REQUIRED, 'auth.ukeyRequired');
    }
    const policy = await currentPolicy(db);
    const expired =
      !user.directory &&
      policy.expiry_days > 0 &&
      user.password_changed_at !== null &&
      now.getTime() - Date.parse(user.password_changed_at) > policy.expiry_days * 86_400_000;
    const domains = await domainsOfUser(db, user.id);
    const domain = domains[0];
    if (!domain) {
      await auditRefusedLogin(meta, 'member of no domain', user);
      throw new KspError(Code.BAD_CREDENTIALS, 'auth.badCredentials');
    }
    const token = await db.transaction().execute(async (trx) => {
      // Locked by a concurrent failure since the check above: no session.
      if (!(await recordLoginSuccess(trx, user.id, now.toISOString())))
        throw new KspError(Code.ACCOUNT_LOCKED, 'auth.accountLocked', { until: '' });
      if (expired) await updateUser(trx, user.id, { must_change_password: 1 });
      const issued = await sessions.issue(trx, { userId: user.id, domainId: domain.id, ip: meta.ip });
      await auditSignedIn(audit, trx, user, domain, meta.ip, 'user.login');
      return issued.token;
    });
    void sessions.purgeExpired().catch(() => undefined);
    return { token, ...(await describe(user.id, domain.name)) };
  }

  async function logout(actor: Actor, meta: RequestMeta): Promise<null> {
    await db.transaction().execute(async (trx) => {
      await sessions.revoke(trx, actor.sessionId);
      await audit.byCaller(trx, actor, meta, { action: 'user.logout', target: actor.username });
    });
    return null;
  }

  /** A new token of the same kind, domain and login time; the old one stops working. */
  async function refresh(actor: Actor, meta: RequestMeta): Promise<string> {
    const { loginAt, kind, parentId } = await sessions.originOf(actor.sessionId);
    return db.transaction().execute(async (trx) => {
      // The sub-console tokens of a refreshed console token stay alive under the new one; a
      // refreshed sub-console token stays its console session's.
      const { token, sessionId } = await sessions.issue(trx, {
        userId: actor.userId,
        domainId: actor.domainId,
        ip: meta.ip,
        loginAt,
        kind,
        parentId,
      });
      await sessions.moveChildren(trx, actor.sessionId, sessionId);
      await sessions.revoke(trx, actor.sessionId);
      await audit.byCaller(trx, actor, meta, {
        action: 'token.refresh',
        target: actor.username,
        details: { token_kind: kind },
      });
      return token;
    });
  }

  async function switchDomain(actor: Actor, domainName: string, meta: RequestMeta): Promise<SignedIn> {
    const domain = await findDomainByName(db, domainName);
    const member = domain && (await domainsOfUser(db, actor.userId)).some((d) => d.id === domain.id);
    if (!domain || !member) throw forbidden('auth.domainNotMember', { domain: domainName });
    const { loginAt, kind, parentId } = await sessions.originOf(actor.sessionId);
    const token = await db.transaction().execute(async (trx) => {
      // A console session's sub-console tokens were for the domain it leaves: they end with it.
      // A switched sub-console token stays its console session's.
      await sessions.revoke(trx, actor.sessionId);
      const issued = await sessions.issue(trx, {
        userId: actor.userId,
        domainId: domain.id,
        ip: meta.ip,
        loginAt,
        kind,
        parentId,
      });
      await audit.byCaller(trx, actor, meta, {
        action: 'user.switch-domain',
        target: domain.name,
        details: { from: actor.domainName, token_kind: kind },
      });
      return issued.token;
    });
    const switched = await sessions.authenticate(token, meta);
    return { token, ...(await describe(actor.userId, domain.name, switched.permissions, switched.kind)) };
  }

  async function updateEmail(actor: Actor, email: string, meta: RequestMeta): Promise<{ email: string }> {
    await db.transaction().execute(async (trx) => {
      await updateUser(trx, actor.userId, { email, updated_at: clock().toISOString() });
      await audit.byCaller(trx, actor, meta, { action: 'user.update-email', target: actor.username });
    });
    return { email };
  }

  async function updateMyPassword(
    actor: Actor,
    body: { old_password: string; new_password: string },
    meta: RequestMeta,
  ): Promise<{ token: string }> {
    const user = await findUserById(db, actor.userId);
    if (!user) throw notFound('user.notFound', { id: actor.userId });
    if (user.directory) throw stateForbids('password.directoryUser');
    if (!(await verifyPassword(clientHash(body.old_password), user.password_hash))) {
      await audit.byCaller(db, actor, meta, {
        action: 'user.update-my-password',
        target: actor.username,
        result: 'failure',
        details: { reason: 'wrong current password' },
      });
      throw invalid('password.wrongOld');
    }
    if (body.old_password === body.new_password) throw invalid('password.sameAsOld');
    const policy = await currentPolicy(db);
    const now = clock();
    if (
      policy.min_change_days > 0 &&
      user.must_change_password === 0 &&
      user.password_changed_at &&
      now.getTime() - Date.parse(user.password_changed_at) < policy.min_change_days * 86_400_000
    ) {
      throw stateForbids('password.tooSoon', { days: policy.min_change_days });
    }
    await assertPasswordAllowed(body.new_password, meta.lang);
    const hash = await hashPassword(clientHash(body.new_password), deps.passwordCost);
    const token = await db.transaction().execute(async (trx) => {
      await updateUser(trx, user.id, {
        password_hash: hash,
        password_changed_at: now.toISOString(),
        must_change_password: 0,
        updated_at: now.toISOString(),
      });
      // Every other session of this user ends; this one continues under a new token.
      await sessions.revokeAllOfUser(trx, user.id);
      const issued = await sessions.issue(trx, { userId: user.id, domainId: actor.domainId, ip: meta.ip });
      await audit.byCaller(trx, actor, meta, { action: 'user.update-my-password', target: actor.username });
      return issued.token;
    });
    return { token };
  }

  async function addUsersToDomain(
    actor: Actor,
    body: { domain_id: string; user_ids: string[] },
    meta: RequestMeta,
  ): Promise<{ added: number }> {
    const domain = await findDomainById(db, body.domain_id);
    if (!domain) throw notFound('domain.notFound', { domain: body.domain_id });
    assertMembershipReach(actor, domain);
    const found = await existingUserIds(db, body.user_ids);
    const missing = body.user_ids.find((id) => !found.includes(id));
    if (missing) throw notFound('user.notFound', { id: missing });
    for (const id of found) {
      const user = await findUserById(db, id);
      if (user) await assertAddable(db, actor, user);
    }
    return db.transaction().execute(async (trx) => {
      let added = 0;
      for (const id of found) if (await addMember(trx, id, domain.id)) added++;
      await audit.byCaller(trx, actor, meta, {
        action: 'user.domain.add-user',
        target: domain.name,
        details: { users: found.length, added },
      });
      return { added };
    });
  }

  return {
    login,
    completeLogin,
    logout,
    refresh,
    switchDomain,
    updateEmail,
    updateMyPassword,
    addUsersToDomain,
    countFailure,
    describe,
    createLocalUser,
    assertPasswordAllowed,
    passwordRules: async () => {
      const p = await currentPolicy(db);
      return {
        min_length: p.min_length,
        max_length: p.max_length,
        min_lowercase: p.min_lowercase,
        min_uppercase: p.min_uppercase,
        min_digits: p.min_digits,
        min_special: p.min_special,
      };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
