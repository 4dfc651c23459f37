import { defaultPasswordPolicy } from '../../platform/auth/password-policy.js';
import type { Executor } from '../../platform/db/database.js';
import type { PasswordPolicyTable } from '../../platform/db/schema.js';

const POLICY_ID = 'default';

export async function ensureDefaultPolicy(db: Executor, now: string): Promise<void> {
  await db
    .insertInto('password_policy')
    .values({ id: POLICY_ID, ...defaultPasswordPolicy, updated_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function currentPolicy(db: Executor) {
  const row = await db
    .selectFrom('password_policy')
    .selectAll()
    .where('id', '=', POLICY_ID)
    .executeTakeFirst();
  return row ?? { id: POLICY_ID, ...defaultPasswordPolicy, updated_at: new Date(0).toISOString() };
}

/** Sets the policy in force. */
export async function updatePolicy(db: Executor, changes: Omit<PasswordPolicyTable, 'id'>): Promise<void> {
  await db.updateTable('password_policy').set(changes).where('id', '=', POLICY_ID).execute();
}
