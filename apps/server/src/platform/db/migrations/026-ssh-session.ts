import type { Kysely } from 'kysely';

/**
 * Web SSH terminal sessions (modules/ssh-server): who opened which server when, how it ended,
 * and its recording (asciicast v2 output events) in chunks sealed under the domain's KEK, since
 * a terminal's output may hold anything the server printed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ssh_session')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domain.id'))
    // Deleting a server deletes its sessions and recordings (the audit log keeps start and end).
    .addColumn('server_id', 'text', (c) => c.notNull().references('ssh_server.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('cols', 'integer', (c) => c.notNull())
    .addColumn('rows', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    /** Raised while the session is open (every 30 s): a session that stops being raised was cut off. */
    .addColumn('alive_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('end_reason', 'text')
    .addColumn('bytes_in', 'bigint', (c) => c.notNull())
    .addColumn('bytes_out', 'bigint', (c) => c.notNull())
    .addColumn('recording_bytes', 'bigint', (c) => c.notNull())
    .addColumn('recording_truncated', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ssh_session_server_idx')
    .on('ssh_session')
    .columns(['server_id', 'started_at'])
    .execute();
  await db.schema
    .createTable('ssh_session_chunk')
    .addColumn('session_id', 'text', (c) => c.notNull().references('ssh_session.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    /** asciicast v2 event lines, sealed (AAD `ssh_session:<id>:<seq>`). */
    .addColumn('data_sealed', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ssh_session_chunk_pk', ['session_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ssh_session_chunk').execute();
  await db.schema.dropTable('ssh_session').execute();
}
