import type { Kysely } from 'kysely';

/**
 * Background jobs (platform/jobs): one lease per job, so one node of a cluster runs it at
 * a time, and the history of runs, with the checkpoint a run left for the next holder.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('job_run')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('checkpoint', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('job_run_job_idx').on('job_run').columns(['job', 'started_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_run').execute();
  await db.schema.dropTable('job_lease').execute();
}
