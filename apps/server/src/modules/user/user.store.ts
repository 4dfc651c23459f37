import type { Executor } from '../../platform/db/database.js';
import type { UserTable } from '../../platform/db/schema.js';

export async function insertUser(db: Executor, row: UserTable): Promise<void> {
  await db.insertInto('app_user').values(row).execute();
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

export async function recordLoginSuccess(db: Executor, id: string, at: string): Promise<void> {
  await db
    .updateTable('app_user')
    .set((eb) => ({
      last_login_at: at,
      login_count: eb('login_count', '+', 1),
      failed_login_count: 0,
      locked_until: null,
    }))
    .where('id', '=', id)
    .execute();
}

export async function recordLoginFailure(db: Executor, id: string, at: string, lockUntil: string | null) {
  await db
    .updateTable('app_user')
    .set((eb) => ({
      last_failed_login_at: at,
      failed_login_count: eb('failed_login_count', '+', 1),
      ...(lockUntil ? { locked_until: lockUntil } : {}),
    }))
    .where('id', '=', id)
    .execute();
}

export async function updateUser(
  db: Executor,
  id: string,
  changes: Partial<Omit<UserTable, 'id' | 'username' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('app_user').set(changes).where('id', '=', id).execute();
}
