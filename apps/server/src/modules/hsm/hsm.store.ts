import type { Executor } from '../../platform/db/database.js';
import type { HsmTable } from '../../platform/db/schema.js';
import { HSM_ROW } from '../../platform/keyring/hsm-settings.js';

/** What binding a token writes. */
export type HsmBinding = Pick<
  HsmTable,
  'library' | 'slot_serial' | 'token_label' | 'key_label' | 'pin_sealed' | 'bound_at' | 'updated_at'
>;

/** Writes the binding into the one settings row (made if there is none). */
export async function saveBinding(db: Executor, values: HsmBinding): Promise<void> {
  await db
    .insertInto('hsm')
    .values({ id: HSM_ROW, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

export async function updateHsmRow(db: Executor, values: Partial<HsmTable>): Promise<void> {
  await db.updateTable('hsm').set(values).where('id', '=', HSM_ROW).execute();
}
