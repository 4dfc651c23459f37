import type { Executor } from '../../platform/db/database.js';
import type { SystemStateTable } from '../../platform/db/schema.js';

const STATE_ID = 'system';

export async function systemState(db: Executor): Promise<SystemStateTable | undefined> {
  return db.selectFrom('system_state').selectAll().where('id', '=', STATE_ID).executeTakeFirst();
}

export async function insertInitializedState(
  db: Executor,
  values: Pick<SystemStateTable, 'initialized_at' | 'root_key_wrapped' | 'root_kcv' | 'seal_fingerprint'>,
): Promise<boolean> {
  const result = await db
    .insertInto('system_state')
    .values({ id: STATE_ID, activated_at: null, root_provider: 'seal-file', ...values })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Marks activation; false when another caller activated first. */
export async function markActivated(db: Executor, at: string): Promise<boolean> {
  const result = await db
    .updateTable('system_state')
    .set({ activated_at: at })
    .where('id', '=', STATE_ID)
    .where('activated_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The root key's new wrapping and where it is held (a move between root providers). */
export async function setRootWrapping(
  db: Executor,
  values: Pick<SystemStateTable, 'root_key_wrapped' | 'seal_fingerprint' | 'root_provider'>,
): Promise<void> {
  await db.updateTable('system_state').set(values).where('id', '=', STATE_ID).execute();
}
