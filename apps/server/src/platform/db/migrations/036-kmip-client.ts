import type { Kysely } from 'kysely';

/**
 * KMIP clients (docs/kmip.md) are clients of type `kmip`: each holds a role, whose permissions
 * apply to its KMIP operations. Null for the other types, and for a KMIP client enrolled with a
 * registration token until an administrator gives it one (every operation is refused until then).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('client').addColumn('role_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('client').dropColumn('role_id').execute();
}
