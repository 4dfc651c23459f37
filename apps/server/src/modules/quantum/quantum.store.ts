import type { Executor } from '../../platform/db/database.js';
import type { QuantumSourceTable } from '../../platform/db/schema.js';

/** The source's settings: one row (id 1), absent until first saved. */
export async function readQuantumSource(db: Executor): Promise<QuantumSourceTable | undefined> {
  return db.selectFrom('quantum_source').selectAll().where('id', '=', 1).executeTakeFirst();
}

/** Saves the settings' row, made on the first save. */
export async function saveQuantumSource(trx: Executor, row: Omit<QuantumSourceTable, 'id'>): Promise<void> {
  const exists = await trx.selectFrom('quantum_source').select('id').where('id', '=', 1).executeTakeFirst();
  if (exists) await trx.updateTable('quantum_source').set(row).where('id', '=', 1).execute();
  else
    await trx
      .insertInto('quantum_source')
      .values({ id: 1, ...row })
      .execute();
}
