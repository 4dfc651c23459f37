import { sql } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { MfaPendingTable, UserTable } from '../../platform/db/schema.js';

/** A new user's own columns, and when it is made (`at`). */
export type NewUser = Pick<
  UserTable,
  'id' | 'username' | 'email' | 'password_hash' | 'directory' | 'password_changed_at'
> & { at: string };

/**
 * Stores a new user: no phone, no password change demanded, never signed in, not locked, no
 * address list, application secret or UKEY yet.
 */
export async function insertUser(db: Executor, user: NewUser): Promise<void> {
  const { at, ...own } = user;
  await db
    .insertInto('app_user')
    .values({
      ...own,
      phone: '',
      must_change_password: 0,
      last_login_at: null,
      login_count: 0,
      last_failed_login_at: null,
      failed_login_count: 0,
      locked_until: null,
      ip_whitelist: '[]',
      app_secret_hash: null,
      app_role_id: null,
      ukey_serial: null,
      ukey_cert: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

export async function findUserByName(db: Executor, username: string) {
  return db.selectFrom('app_user').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function findUserById(db: Executor, id: string) {
  return db.selectFrom('app_user').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function existingUserIds(db: Executor, ids: string[]): Promise<string[]> {
  const rows = await db.selectFrom('app_user').select('id').where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('app_user')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Records a sign-in, unless the account is locked at this instant: one conditional
 * update, so no concurrent failure can lock the account between a check and this write.
 * Answers false (and writes nothing) when the account is locked.
 */
export async function recordLoginSuccess(db: Executor, id: string, at: string): Promise<boolean> {
  const row = await db
    .updateTable('app_user')
    .set((eb) => ({
      last_login_at: at,
      login_count: eb('login_count', '+', 1),
      failed_login_count: 0,
      locked_until: null,
    }))
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Counts one failed sign-in and decides the lockout in the same statement: the database
 * serializes concurrent failures on the row, so exactly `lock.after` failures lock it.
 * A lock that has run out starts the count afresh. Answers null (and counts nothing)
 * when the account is already locked.
 */
export async function recordLoginFailure(
  db: Executor,
  id: string,
  at: string,
  lock: { after: number; until: string } | null,
): Promise<{ failures: number; lockedUntil: string | null } | null> {
  const failures = sql<number>`(CASE WHEN locked_until IS NOT NULL AND locked_until <= ${at} THEN 1 ELSE failed_login_count + 1 END)`;
  const row = await db
    .updateTable('app_user')
    .set({
      last_failed_login_at: at,
      failed_login_count: failures,
      locked_until: lock
        ? sql<string | null>`(CASE WHEN ${failures} >= ${lock.after} THEN ${lock.until} ELSE NULL END)`
        : null,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
    .returning(['failed_login_count', 'locked_until'])
    .executeTakeFirst();
  return row ? { failures: Number(row.failed_login_count), lockedUntil: row.locked_until } : null;
}

export async function updateUser(
  db: Executor,
  id: string,
  changes: Partial<Omit<UserTable, 'id' | 'username' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('app_user').set(changes).where('id', '=', id).execute();
}

/** The tables that tie a user to a domain (its members) and to a role (its holders). */
const LINKS = { domain: ['user_domain', 'domain_id'], role: ['user_role', 'role_id'] } as const;

/** The users tied to the domain or the role `id`. */
function linkedTo(to: keyof typeof LINKS, id: string) {
  const [table, column] = LINKS[to];
  return sql<boolean>`exists (select 1 from ${sql.table(table)} where ${sql.ref(`${table}.user_id`)} = app_user.id and ${sql.ref(`${table}.${column}`)} = ${id})`;
}

export async function listUsers(
  db: Executor,
  args: {
    domainId: string | null;
    username?: string | undefined;
    roleId?: string | undefined;
    locked?: boolean | undefined;
    now: string;
  },
  page: PageQuery,
) {
  let q = db.selectFrom('app_user');
  if (args.domainId) q = q.where(linkedTo('domain', args.domainId));
  if (args.username) q = q.where('username', 'like', `%${escapeLike(args.username)}%`);
  if (args.roleId) q = q.where(linkedTo('role', args.roleId));
  if (args.locked === true) q = q.where('locked_until', '>', args.now);
  if (args.locked === false)
    q = q.where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', args.now)]));
  return pagedRows(q, page, (found) => found.selectAll().orderBy('username'));
}

export async function findUsers(db: Executor, ids: string[]) {
  return db.selectFrom('app_user').selectAll().where('id', 'in', ids).execute();
}

export async function groupsOfUsers(db: Executor, userIds: string[]) {
  if (userIds.length === 0) return { roles: [], domains: [] };
  const [roles, domains] = await Promise.all([
    db
      .selectFrom('user_role')
      .innerJoin('role', 'role.id', 'user_role.role_id')
      .select(['user_role.user_id', 'role.id', 'role.name', 'role.domain_id'])
      .where('user_role.user_id', 'in', userIds)
      .orderBy('role.name')
      .execute(),
    db
      .selectFrom('user_domain')
      .innerJoin('domain', 'domain.id', 'user_domain.domain_id')
      .select(['user_domain.user_id', 'domain.id', 'domain.name'])
      .where('user_domain.user_id', 'in', userIds)
      .orderBy('domain.name')
      .execute(),
  ]);
  return { roles, domains };
}

export async function deleteUsers(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('app_user').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findUserByAppSecretHash(db: Executor, hash: string) {
  return db.selectFrom('app_user').selectAll().where('app_secret_hash', '=', hash).executeTakeFirst();
}

export async function grantRole(db: Executor, userId: string, roleId: string): Promise<void> {
  await db.insertInto('user_role').values({ user_id: userId, role_id: roleId }).execute();
}

/** The pending second factor of a user whose password was right, made or started again. */
export async function putMfaPending(db: Executor, row: MfaPendingTable): Promise<void> {
  const { user_id: _user, ...fresh } = row;
  await db
    .insertInto('mfa_pending')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(fresh))
    .execute();
}

export async function findMfaPending(db: Executor, userId: string) {
  return db.selectFrom('mfa_pending').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function setMfaChallenge(db: Executor, userId: string, challenge: string, expiresAt: string) {
  await db
    .updateTable('mfa_pending')
    .set({ challenge, challenge_expires_at: expiresAt })
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMfaPending(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('mfa_pending').where('user_id', '=', userId).execute();
}

/** Takes users out of a domain; how many memberships ended. */
export async function removeMembers(db: Executor, domainId: string, userIds: string[]): Promise<number> {
  const result = await db
    .deleteFrom('user_domain')
    .where('domain_id', '=', domainId)
    .where('user_id', 'in', userIds)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether the user is still a member of some domain. */
export async function hasAnyDomain(db: Executor, userId: string): Promise<boolean> {
  const left = await db
    .selectFrom('user_domain')
    .select('domain_id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return left !== undefined;
}
