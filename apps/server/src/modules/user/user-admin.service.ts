import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  api,
  Code,
  ipAllowed,
  ROOT_DOMAIN,
  type Input,
  type QueryInput,
  type SubConsoleTokenKind,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import { clientHash, hashPassword } from '../../platform/auth/password.js';
import type { Clock, SessionService } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { UserTable } from '../../platform/db/schema.js';
import { forbidden, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { auditSignedIn, type UserService } from './user.service.js';
import {
  deleteUsers,
  findUserById,
  findUserByName,
  findUsers,
  groupsOfUsers,
  hasAnyDomain,
  listUsers,
  recordLoginSuccess,
  removeMembers,
  updateUser,
} from './user.store.js';

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Administration of other users: list, create, roles, passwords, whitelist, app secrets. */
export function createUserAdminService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  sessions: SessionService;
  users: UserService;
  /** The scrypt cost new password hashes are stored at (KspConfig.passwordCost). */
  passwordCost: number;
  domains: ModuleServices['domains'];
  roles: ModuleServices['roles'];
}) {
  const { db, clock, sessions, audit } = deps;
  const {
    assertManageable,
    assertMembershipReach,
    domainIdsOf,
    domainsOfUser,
    findDomainById,
    visibleDomainIds,
  } = deps.domains;
  const {
    assertAdministratorsRemain,
    assertRolesVisible,
    findRoles,
    permissionsOfUser,
    rolePermissionsOf,
    roleVisibleTo,
    setUserRoles,
  } = deps.roles;

  /** Rows as the caller may see them: other domains' and their roles' names are left out. */
  async function toRows(actor: Actor, users: UserTable[]) {
    const { roles: allRoles, domains: allDomains } = await groupsOfUsers(
      db,
      users.map((u) => u.id),
    );
    const visible = await visibleDomainIds(db, actor);
    const domains = visible ? allDomains.filter((d) => visible.has(d.id)) : allDomains;
    const roles = allRoles.filter((r) => roleVisibleTo(actor, r));
    const now = clock().getTime();
    return users.map((u) => ({
      id: u.id,
      username: u.username,
      email: u.email,
      phone: u.phone,
      directory: u.directory,
      roles: roles.filter((r) => r.user_id === u.id).map((r) => ({ id: r.id, name: r.name })),
      domains: domains.filter((d) => d.user_id === u.id).map((d) => ({ id: d.id, name: d.name })),
      ukey_bound: Boolean(u.ukey_cert),
      ukey_serial: u.ukey_serial,
      must_change_password: u.must_change_password === 1,
      locked: Boolean(u.locked_until && Date.parse(u.locked_until) > now),
      has_app_secret: Boolean(u.app_secret_hash),
      ip_whitelist: JSON.parse(u.ip_whitelist) as string[],
      last_login_at: u.last_login_at,
      login_count: u.login_count,
      last_failed_login_at: u.last_failed_login_at,
      failed_login_count: u.failed_login_count,
      created_at: u.created_at,
    }));
  }

  /** A user the caller may change (domain.reach.ts): 4040 outside its domain, 4030 beyond its reach. */
  async function managed(actor: Actor, id: string): Promise<UserTable> {
    const user = await findUserById(db, id);
    if (!user) throw notFound('user.notFound', { id });
    await assertManageable(db, actor, user);
    return user;
  }

  /** A user the caller may see: a member of its current domain (any user with system scope). */
  async function visible(actor: Actor, id: string): Promise<UserTable> {
    const user = await findUserById(db, id);
    if (!user || (!actor.systemScope && !(await domainIdsOf(db, id)).has(actor.domainId)))
      throw notFound('user.notFound', { id });
    return user;
  }

  async function row(actor: Actor, id: string) {
    const user = await findUserById(db, id);
    if (!user) throw notFound('user.notFound', { id });
    return (await toRows(actor, [user]))[0]!;
  }

  const checkRoles = (actor: Actor, ids: string[]) => assertRolesVisible(db, actor, ids);

  /** The domains a new user may be put in: the caller's own (never root without system scope). */
  async function checkNewUserDomains(actor: Actor, ids: string[]): Promise<void> {
    for (const id of ids) {
      const domain = await findDomainById(db, id);
      if (!domain) throw notFound('domain.notFound', { domain: id });
      if (actor.systemScope) continue;
      const mine = await domainIdsOf(db, actor.userId);
      if (!mine.has(id)) throw notFound('domain.notFound', { domain: id });
      if (domain.name === ROOT_DOMAIN) throw forbidden('domain.outOfReach', { domain: actor.domainName });
    }
  }

  async function newSecret(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    action: string,
    roleId?: string,
  ): Promise<{ user: UserTable; secret: string }> {
    const user = id === actor.userId ? (await findUserById(db, id))! : await managed(actor, id);
    if (roleId) await checkAppRole(actor, user, roleId);
    const secret = `ksp_${randomBytes(32).toString('base64url')}`;
    await db.transaction().execute(async (trx) => {
      await updateUser(trx, user.id, {
        app_secret_hash: hashSecret(secret),
        app_role_id: roleId ?? null,
        updated_at: clock().toISOString(),
      });
      await audit.byCaller(trx, actor, meta, { action: action, target: user.username });
    });
    return { user, secret };
  }

  /** An app secret's role: one the caller sees, granting nothing its user lacks. */
  async function checkAppRole(actor: Actor, user: UserTable, roleId: string): Promise<void> {
    await checkRoles(actor, [roleId]);
    const [chosen, held] = await Promise.all([rolePermissionsOf(db, roleId), permissionsOfUser(db, user.id)]);
    const extra = [...(chosen ?? [])].filter((p) => !held.has(p));
    if (extra.length > 0) {
      const name = (await findRoles(db, [roleId]))[0]?.name ?? roleId;
      throw invalid('user.appRoleTooWide', { name, permissions: extra.slice(0, 5).join(', ') });
    }
  }

  return {
    toRows,

    async list(actor: Actor, query: QueryInput<typeof api.user.list>) {
      const { rows, total } = await listUsers(
        db,
        {
          domainId: actor.systemScope ? null : actor.domainId,
          username: query.username,
          roleId: query.role_id,
          locked: query.status === undefined ? undefined : query.status === 'locked',
          now: clock().toISOString(),
        },
        query,
      );
      return { data: await toRows(actor, rows), total };
    },

    async detail(actor: Actor, id: string) {
      return (await toRows(actor, [await visible(actor, id)]))[0]!;
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.create>) {
      await checkRoles(actor, body.role_ids);
      const domainIds = body.domain_ids?.length ? [...new Set(body.domain_ids)] : [actor.domainId];
      await checkNewUserDomains(actor, domainIds);
      await deps.users.assertPasswordAllowed(body.password, meta.lang);
      const id = await db.transaction().execute(async (trx) => {
        const userId = await deps.users.createLocalUser(trx, {
          username: body.username,
          password: body.password,
          email: body.email,
          domainIds,
          roleIds: body.role_ids,
        });
        await updateUser(trx, userId, {
          phone: body.phone,
          must_change_password: body.must_change_password ? 1 : 0,
          ip_whitelist: JSON.stringify(body.ip_whitelist),
        });
        await audit.byCaller(trx, actor, meta, {
          action: 'user.create',
          target: body.username,
          details: { roles: body.role_ids.length },
        });
        return userId;
      });
      return row(actor, id);
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.update>) {
      const user = await managed(actor, body.id);
      if (body.role_ids) await checkRoles(actor, body.role_ids);
      await db.transaction().execute(async (trx) => {
        if (body.phone !== undefined)
          await updateUser(trx, user.id, { phone: body.phone, updated_at: clock().toISOString() });
        if (body.role_ids) {
          await setUserRoles(trx, user.id, body.role_ids);
          await assertAdministratorsRemain(trx);
        }
        await audit.byCaller(trx, actor, meta, { action: 'user.update', target: user.username });
      });
      return row(actor, user.id);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      if (ids.includes(actor.userId)) throw stateForbids('user.deleteSelf');
      const users = await findUsers(db, ids);
      for (const id of ids) await managed(actor, id);
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteUsers(trx, ids);
        await assertAdministratorsRemain(trx);
        for (const u of users)
          await audit.byCaller(trx, actor, meta, { action: 'user.delete', target: u.username });
        return { deleted };
      });
    },

    async updateEmail(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.updateEmail>) {
      if (!body.id || body.id === actor.userId) return deps.users.updateEmail(actor, body.email, meta);
      if (!actor.permissions.has('user:write'))
        throw forbidden('auth.forbidden', { permission: 'user:write' });
      const user = await managed(actor, body.id);
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, { email: body.email, updated_at: clock().toISOString() });
        await audit.byCaller(trx, actor, meta, { action: 'user.update-email', target: user.username });
      });
      return { email: body.email };
    },

    async resetPassword(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.updatePassword>) {
      const user = await managed(actor, body.id);
      if (user.directory) throw stateForbids('user.directoryPassword', { name: user.username });
      await deps.users.assertPasswordAllowed(body.password, meta.lang);
      const hash = await hashPassword(clientHash(body.password), deps.passwordCost);
      await db.transaction().execute(async (trx) => {
        const now = clock().toISOString();
        await updateUser(trx, user.id, {
          password_hash: hash,
          must_change_password: 1,
          password_changed_at: now,
          updated_at: now,
        });
        await sessions.revokeAllOfUser(trx, user.id);
        await audit.byCaller(trx, actor, meta, { action: 'user.update-password', target: user.username });
      });
      return null;
    },

    async requireChange(
      actor: Actor,
      meta: RequestMeta,
      body: Input<typeof api.user.updatePasswordNextLogin>,
    ) {
      const user = await managed(actor, body.id);
      if (user.directory && body.value) throw stateForbids('user.directoryPassword', { name: user.username });
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, {
          must_change_password: body.value ? 1 : 0,
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, {
          action: 'user.update-password-next-login',
          target: user.username,
          details: { value: body.value },
        });
      });
      return null;
    },

    async unlock(actor: Actor, meta: RequestMeta, id: string) {
      const user = await managed(actor, id);
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, {
          locked_until: null,
          failed_login_count: 0,
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, { action: 'user.unlock', target: user.username });
      });
      return null;
    },

    async updateIp(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.updateIp>) {
      const user = await managed(actor, body.id);
      const list = [...new Set(body.ip_whitelist.map((r) => r.trim()))];
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, {
          ip_whitelist: JSON.stringify(list),
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, {
          action: 'user.update-ip',
          target: user.username,
          details: { rules: list.length },
        });
      });
      return { ip_whitelist: list };
    },

    async addToDomain(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.domainAddUser>) {
      return deps.users.addUsersToDomain(actor, body, meta);
    },

    async removeFromDomain(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.domainDeleteUser>) {
      const domain = await findDomainById(db, body.domain_id);
      if (!domain) throw notFound('domain.notFound', { domain: body.domain_id });
      assertMembershipReach(actor, domain);
      return db.transaction().execute(async (trx) => {
        const removed = await removeMembers(trx, domain.id, body.user_ids);
        await sessions.revokeInDomain(trx, body.user_ids, domain.id);
        // A user must stay a member of at least one domain to sign in at all.
        for (const id of body.user_ids) {
          if (!(await hasAnyDomain(trx, id))) throw stateForbids('domain.lastDomain', { id });
        }
        await audit.byCaller(trx, actor, meta, {
          action: 'user.domain.delete-user',
          target: domain.name,
          details: { users: body.user_ids.length },
        });
        return { removed };
      });
    },

    async updateSecret(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.updateSecret>) {
      const { id } = body;
      if (id && id !== actor.userId && !actor.permissions.has('user:write')) {
        throw forbidden('auth.forbidden', { permission: 'user:write' });
      }
      const { secret } = await newSecret(actor, meta, id ?? actor.userId, 'user.update-secret', body.role_id);
      return { app_secret: secret };
    },

    async sendSdkUser(actor: Actor, meta: RequestMeta, id: string) {
      const { user, secret } = await newSecret(actor, meta, id, 'user.send-sdk-user');
      return {
        username: user.username,
        app_secret: secret,
        login_path: api.user.appLogin.path,
        issued_at: clock().toISOString(),
      };
    },

    /**
     * An application trades its secret for an application token: crypto API and key reads
     * only, with the secret's role. Lockout and the IP whitelist apply as to a password;
     * MFA does not (an application token cannot reach the management API).
     */
    async appLogin(body: Input<typeof api.user.appLogin>, meta: RequestMeta) {
      const user = await findUserByName(db, body.username);
      const expected = Buffer.from(user?.app_secret_hash ?? '0'.repeat(64), 'hex');
      const given = Buffer.from(hashSecret(body.app_secret), 'hex');
      const ok = Boolean(user?.app_secret_hash) && timingSafeEqual(expected, given);
      const now = clock();
      const refuse = async (reason: string, error: KspError) => {
        await audit.write(db, {
          who: user ? { userId: user.id, username: user.username, domainId: null, domainName: '' } : null,
          action: 'user.app-login',
          target: user?.username ?? body.username.slice(0, 64),
          result: 'failure',
          ip: meta.ip,
          details: { reason },
        });
        return error;
      };
      const locked = () =>
        new KspError(Code.ACCOUNT_LOCKED, 'auth.accountLocked', { until: user?.locked_until ?? '' });
      if (!user) throw await refuse('unknown user', new KspError(Code.BAD_CREDENTIALS, 'user.badAppSecret'));
      if (!ok) {
        const counted = await deps.users.countFailure(user.id, now);
        if (!counted) throw await refuse('locked', locked());
        throw await refuse(
          counted.lockedUntil ? 'bad secret, account locked' : 'bad secret',
          new KspError(Code.BAD_CREDENTIALS, 'user.badAppSecret'),
        );
      }
      if (user.locked_until && Date.parse(user.locked_until) > now.getTime())
        throw await refuse('locked', locked());
      if (!ipAllowed(meta.ip, JSON.parse(user.ip_whitelist) as string[])) {
        throw await refuse(
          'address not in whitelist',
          new KspError(Code.IP_NOT_ALLOWED, 'auth.ipNotAllowed', { ip: meta.ip }),
        );
      }
      const domain = (await domainsOfUser(db, user.id))[0];
      if (!domain)
        throw await refuse('member of no domain', new KspError(Code.BAD_CREDENTIALS, 'user.badAppSecret'));
      const token = await db.transaction().execute(async (trx) => {
        if (!(await recordLoginSuccess(trx, user.id, now.toISOString()))) throw locked();
        const issued = await sessions.issue(trx, {
          userId: user.id,
          domainId: domain.id,
          ip: meta.ip,
          kind: 'app',
        });
        await auditSignedIn(audit, trx, user, domain, meta.ip, 'user.app-login');
        return issued.token;
      });
      return { token, expires_in: sessions.settings.idleSeconds };
    },

    async scopedToken(actor: Actor, meta: RequestMeta, scope: SubConsoleTokenKind) {
      // The token belongs to the console session behind the caller (its own, or the one a
      // sub-console token came from): signing out of that session ends it.
      const { parentId } = await sessions.originOf(actor.sessionId);
      return db.transaction().execute(async (trx) => {
        const issued = await sessions.issue(trx, {
          userId: actor.userId,
          domainId: actor.domainId,
          ip: meta.ip,
          kind: scope,
          parentId: parentId ?? actor.sessionId,
        });
        await audit.byCaller(trx, actor, meta, { action: `user.${scope}-token`, target: actor.username });
        return { token: issued.token };
      });
    },
  };
}

export type UserAdminService = ReturnType<typeof createUserAdminService>;
