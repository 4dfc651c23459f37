import { sql, type Kysely } from 'kysely';

/**
 * The records the sealing job has still to place in their chain (modules/log/log.chain.ts),
 * in the order it seals them. Without it the job's `chain_seq is null order by at, id` walked
 * the whole trail's `(at, id)` index past every sealed record, every few seconds: work that
 * grew with the trail. A partial index holds only the unsealed few.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index audit_unsealed_idx on audit_log (at, id) where chain_seq is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_unsealed_idx').execute();
}
