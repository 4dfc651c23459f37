import type { Kysely } from 'kysely';

/**
 * Backups run on the jobs service (modules/backup): each backup records the node whose backup
 * directory holds its archive, so a node without it can say where it is. Null until a node
 * starts writing it (a queued backup).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('backup').addColumn('node', 'text').execute();
}
