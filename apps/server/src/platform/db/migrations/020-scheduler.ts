import type { Kysely } from 'kysely';

/**
 * The scheduler (modules/scheduler): key-rotation tasks of a domain, their runs, and each run's
 * keys with what became of them. A key's row turns `rotated` in the same transaction as its new
 * version, so a run taken over by another node never rotates a key twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scheduler_task')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('interval', 'text')
    .addColumn('start_at', 'text')
    .addColumn('end_at', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_result', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('scheduler_task_domain_name', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createIndex('scheduler_task_due_idx')
    .on('scheduler_task')
    .columns(['next_run_at'])
    .execute();
  await db.schema
    .createTable('scheduler_run')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('task_name', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('node', 'text')
    .addColumn('backup_id', 'text')
    .addColumn('matched', 'integer', (c) => c.notNull())
    .addColumn('rotated', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('scheduler_run_task_idx')
    .on('scheduler_run')
    .columns(['task_id', 'created_at'])
    .execute();
  await db.schema.createIndex('scheduler_run_state_idx').on('scheduler_run').columns(['state']).execute();
  await db.schema
    .createTable('scheduler_run_key')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('key_name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('error', 'text')
    .addColumn('at', 'text')
    .addPrimaryKeyConstraint('scheduler_run_key_pk', ['run_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scheduler_run_key').execute();
  await db.schema.dropTable('scheduler_run').execute();
  await db.schema.dropTable('scheduler_task').execute();
}
