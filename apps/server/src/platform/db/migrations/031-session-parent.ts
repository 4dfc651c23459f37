import type { Kysely } from 'kysely';

/**
 * Sub-console tokens (`user/kadp_token`, `user/ssm-token`, ...) belong to the console session
 * that asked for them: `parent_id` names it, and ending that session (logout, password change,
 * domain switch) ends them with it. A refresh hands them to the new token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session').addColumn('parent_id', 'text').execute();
  await db.schema.createIndex('session_parent_idx').on('session').column('parent_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('session_parent_idx').execute();
  await db.schema.alterTable('session').dropColumn('parent_id').execute();
}
