import type { Kysely } from 'kysely';

/**
 * Records about a key name it in `object_id`, indexed with the time, so a key's trail is
 * read from the index instead of scanning its domain's whole audit log (which the crypto
 * API grows by thousands of records a second).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('object_id', 'text').execute();
  await db.schema.createIndex('audit_object_idx').on('audit_log').columns(['object_id', 'at']).execute();
  // Earlier records named their key in details.key_id only.
  const typed = db as unknown as Kysely<{
    audit_log: { id: string; details: string; object_id: string | null };
  }>;
  const rows = await typed
    .selectFrom('audit_log')
    .select(['id', 'details'])
    .where('details', 'like', '%"key_id":%')
    .execute();
  for (const row of rows) {
    const keyId = (JSON.parse(row.details) as { key_id?: unknown }).key_id;
    if (typeof keyId !== 'string') continue;
    await typed.updateTable('audit_log').set({ object_id: keyId }).where('id', '=', row.id).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_object_idx').ifExists().execute();
  await db.schema.alterTable('audit_log').dropColumn('object_id').execute();
}
