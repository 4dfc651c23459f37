import { sql, type Kysely } from 'kysely';

/**
 * The log page's columns (MODULES.md §8): a record's severity (INFO, WARNING, ERROR, CRITICAL)
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_action_idx').execute();
  await db.schema.dropIndex('audit_domain_idx').execute();
  await db.schema.dropIndex('audit_at_idx').execute();
  await db.schema.createIndex('audit_at_idx').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_domain_idx').on('audit_log').columns(['domain_id', 'at']).execute();
  await db.schema.alterTable('audit_log').dropColumn('source').execute();
  await db.schema.alterTable('audit_log').dropColumn('severity').execute();
}
