import type { Executor } from '../db/database.js';
import type { SessionTable } from '../db/schema.js';

export async function insertSession(db: Executor, row: SessionTable): Promise<void> {
  await db.insertInto('session').values(row).execute();
}

export async function findSessionByHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('session')
    .innerJoin('app_user', 'app_user.id', 'session.user_id')
    .innerJoin('domain', 'domain.id', 'session.domain_id')
    .select([
      'session.id as session_id',
      'session.user_id',
      'session.domain_id',
      'session.login_at',
      'session.last_seen_at',
      'session.scope',
      'app_user.username',
      'app_user.ip_whitelist',
      'app_user.must_change_password',
      'app_user.directory',
      'app_user.app_role_id',
      'domain.name as domain_name',
    ])
    .where('session.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('session').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/** Ends a session and the sub-console tokens handed out from it. */
export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db
    .deleteFrom('session')
    .where((eb) => eb.or([eb('id', '=', id), eb('parent_id', '=', id)]))
    .execute();
}

/** Hands the sub-console tokens of one session to another (a refresh of the console token). */
export async function moveChildSessions(db: Executor, from: string, to: string): Promise<void> {
  await db.updateTable('session').set({ parent_id: to }).where('parent_id', '=', from).execute();
}

export async function deleteSessionsOfUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('session').where('user_id', '=', userId).execute();
}

/** Drops sessions that expired more than a day ago (expired ones answer 4604 until then). */
export async function purgeSessions(db: Executor, idleBefore: string, loginBefore: string): Promise<void> {
  await db
    .deleteFrom('session')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('login_at', '<', loginBefore)]))
    .execute();
}

export async function countActiveSessions(
  db: Executor,
  idleAfter: string,
  loginAfter: string,
  domainId: string | null = null,
): Promise<number> {
  let q = db
    .selectFrom('session')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('last_seen_at', '>=', idleAfter)
    .where('login_at', '>=', loginAfter);
  if (domainId) q = q.where('domain_id', '=', domainId);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}
