import type { Kysely } from 'kysely';

/**
 * Two levels of administration. A custom role belongs to the domain it was made in
 * (`domain_id`; null for the built-in roles, which every domain sees), so a domain
 * administrator never sees or edits another domain's roles. An app secret carries the
 * role chosen for it (`app_role_id`; null: the user's own roles).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('role').addColumn('domain_id', 'text').execute();
  await db.schema.alterTable('app_user').addColumn('app_role_id', 'text').execute();
  const typed = db as unknown as Kysely<{
    role: { type: string; domain_id: string | null };
    domain: { id: string; name: string };
  }>;
  // Custom roles made before this release were global; they become the root domain's.
  const root = await typed.selectFrom('domain').select('id').where('name', '=', 'root').executeTakeFirst();
  if (root)
    await typed.updateTable('role').set({ domain_id: root.id }).where('type', '=', 'custom').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_user').dropColumn('app_role_id').execute();
  await db.schema.alterTable('role').dropColumn('domain_id').execute();
}
