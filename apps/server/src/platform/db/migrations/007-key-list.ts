import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The key list at a million keys per domain (docs/performance.md, "Key list").
 *
 * - `kms_key_list_idx` is the list's order (newest first, then name) read backwards, and holds
 *   every column the list filters on, so a page's ids, however deep, are read from the index
 *   alone. Backwards, because keys are created in time order: they append at its end, where a
 *   page that fills up splits into a full page and an empty one (inserted at its start, every
 *   page would be split half-empty: twice the size to read). It replaces `kms_key_domain_idx`.
 * - `kms_key_prefix_idx` serves the `name_prefix` filter: a range of names in byte order
 *   (`collate "C"` on PostgreSQL, SQLite's default), with the filter columns, the time and the
 *   id, so the keys matching a prefix are read and sorted from the index alone.
 * - `kms_key_tally` counts the keys of each domain by state, algorithm, object type and month
 *   of creation, kept by triggers, so the list's total is a sum of a few hundred rows instead of
 *   a count of the keys, and a deep page starts its scan at the month that holds its first key
 *   instead of skipping every newer key. Triggers see every writer (the service, the journal's
 *   multi-row inserts, a restore).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.dropIndex('kms_key_domain_idx').execute();
  await db.schema
    .createIndex('kms_key_list_idx')
    .on('kms_key')
    .columns([
      'domain_id',
      'created_at',
      'name desc',
      'state',
      'algorithm',
      'object_type',
      'usage_mask',
      'id',
    ])
    .execute();
  const bytewise = sql.raw(postgres ? 'collate "C"' : 'collate binary');
  await sql`create index kms_key_prefix_idx
            on kms_key (domain_id, name ${bytewise}, state, algorithm, object_type, usage_mask, created_at, id)`.execute(
    db,
  );

  await db.schema
    .createTable('kms_key_tally')
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    /** `YYYY-MM` of created_at (UTC). */
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('keys', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('kms_key_tally_pk', ['domain_id', 'state', 'algorithm', 'object_type', 'month'])
    .execute();
  const group = sql.raw('domain_id, state, algorithm, object_type, substr(created_at, 1, 7)');
  await sql`insert into kms_key_tally (domain_id, state, algorithm, object_type, month, keys)
            select ${group}, count(*) from kms_key group by ${group}`.execute(db);

  const add = (row: 'new') =>
    sql.raw(`insert into kms_key_tally (domain_id, state, algorithm, object_type, month, keys)
      values (${row}.domain_id, ${row}.state, ${row}.algorithm, ${row}.object_type, substr(${row}.created_at, 1, 7), 1)
      on conflict (domain_id, state, algorithm, object_type, month) do update set keys = kms_key_tally.keys + 1;`);
  const remove = (row: 'old') =>
    sql.raw(`update kms_key_tally set keys = keys - 1
      where domain_id = ${row}.domain_id and state = ${row}.state
        and algorithm = ${row}.algorithm and object_type = ${row}.object_type
        and month = substr(${row}.created_at, 1, 7);`);
  const counted = sql.raw('domain_id, state, algorithm, object_type, created_at');
  if (postgres) {
    // A change of state locks its two tally rows in state order, so two transactions moving
    // keys of one kind opposite ways (disable one, recover another) cannot deadlock.
    await sql`create function kms_key_tally() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and new.state < old.state then
          ${add('new')} ${remove('old')}
        else
          if tg_op in ('UPDATE', 'DELETE') then ${remove('old')} end if;
          if tg_op in ('INSERT', 'UPDATE') then ${add('new')} end if;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger kms_key_tally after insert or delete or update of ${counted} on kms_key
              for each row execute function kms_key_tally()`.execute(db);
  } else {
    await sql`create trigger kms_key_tally_insert after insert on kms_key begin ${add('new')} end`.execute(
      db,
    );
    await sql`create trigger kms_key_tally_delete after delete on kms_key begin ${remove('old')} end`.execute(
      db,
    );
    await sql`create trigger kms_key_tally_update after update of ${counted} on kms_key
              begin ${remove('old')} ${add('new')} end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`drop trigger if exists kms_key_tally on kms_key`.execute(db);
    await sql`drop function if exists kms_key_tally()`.execute(db);
  } else {
    for (const name of ['kms_key_tally_insert', 'kms_key_tally_delete', 'kms_key_tally_update'])
      await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  await db.schema.dropTable('kms_key_tally').ifExists().execute();
  await db.schema.dropIndex('kms_key_prefix_idx').ifExists().execute();
  await db.schema.dropIndex('kms_key_list_idx').ifExists().execute();
  await db.schema
    .createIndex('kms_key_domain_idx')
    .on('kms_key')
    .columns(['domain_id', 'created_at'])
    .execute();
}
