import { sql, type Kysely } from 'kysely';

/**
 * The log page's columns (docs/modules.md#log-and-audit): a record's severity (INFO, WARNING, ERROR, CRITICAL)
 * and where it came from (web: a console session; api: an application or service token;
 * scheduler: the server's own work). Earlier records get them from what they already say.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('severity', 'text', (c) => c.notNull().defaultTo('INFO'))
    .execute();
  await db.schema
    .alterTable('audit_log')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('web'))
    .execute();
  // The action's area ("key" of "key.create"), for the log's area filter.
  await db.schema
    .alterTable('audit_log')
    .addColumn('area', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  const typed = db as unknown as Kysely<{ audit_log: { action: string; area: string } }>;
  for (const { action } of await typed.selectFrom('audit_log').select('action').distinct().execute())
    await typed
      .updateTable('audit_log')
      .set({ area: action.split('.')[0] ?? '' })
      .where('action', '=', action)
      .execute();
  await sql`update audit_log set severity = 'WARNING' where result = 'failure'`.execute(db);
  await sql`update audit_log set source = 'scheduler' where user_id is null and username = 'system'`.execute(
    db,
  );
  // The log's pages are ordered by (at, id): indexes that end with both let a page's ids be
  // read from the index alone, however deep the page (log.store.ts reads ids, then rows).
  await db.schema.dropIndex('audit_at_idx').execute();
  await db.schema.dropIndex('audit_domain_idx').execute();
  await db.schema.createIndex('audit_at_idx').on('audit_log').columns(['at', 'id']).execute();
  await db.schema
    .createIndex('audit_domain_idx')
    .on('audit_log')
    .columns(['domain_id', 'at', 'id'])
    .execute();
  await db.schema.createIndex('audit_action_idx').on('audit_log').columns(['action', 'at', 'id']).execute();
  await db.schema
    .createIndex('audit_action_result_idx')
    .on('audit_log')
    .columns(['action', 'result', 'at', 'id'])
    .execute();
  await db.schema.createIndex('audit_area_idx').on('audit_log').columns(['area', 'at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_area_idx').execute();
  await db.schema.dropIndex('audit_action_result_idx').execute();
  await db.schema.dropIndex('audit_action_idx').execute();
  await db.schema.dropIndex('audit_domain_idx').execute();
  await db.schema.dropIndex('audit_at_idx').execute();
  await db.schema.createIndex('audit_at_idx').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_domain_idx').on('audit_log').columns(['domain_id', 'at']).execute();
  await db.schema.alterTable('audit_log').dropColumn('area').execute();
  await db.schema.alterTable('audit_log').dropColumn('source').execute();
  await db.schema.alterTable('audit_log').dropColumn('severity').execute();
}
