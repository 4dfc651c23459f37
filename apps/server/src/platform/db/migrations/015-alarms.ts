import type { Kysely } from 'kysely';

/**
 * Alarm rules and the alarms they raise (modules/alarm). A rule belongs to a domain; one made
 * in the root domain counts every domain's records (`all_domains`). An alarm keeps its rule's
 * name and figures, so it reads the same after the rule is changed or deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alarm_rule')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('all_domains', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('result', 'text')
    .addColumn('min_severity', 'text')
    .addColumn('threshold', 'integer', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('last_raised_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alarm_rule_domain_name_uq', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createTable('alarm')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('rule_name', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('window_from', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('threshold', 'integer', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('acknowledged_by', 'text')
    .addColumn('acknowledged_at', 'text')
    .execute();
  // Lists are newest first, for one domain or all; the summary counts the open ones.
  await db.schema.createIndex('alarm_raised_idx').on('alarm').columns(['raised_at', 'id']).execute();
  await db.schema
    .createIndex('alarm_domain_idx')
    .on('alarm')
    .columns(['domain_id', 'raised_at', 'id'])
    .execute();
  await db.schema.createIndex('alarm_state_idx').on('alarm').columns(['state', 'raised_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alarm').execute();
  await db.schema.dropTable('alarm_rule').execute();
}
