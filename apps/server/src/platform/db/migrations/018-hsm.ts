import type { Kysely } from 'kysely';

/**
 * The HSM root of trust (modules/hsm): which root of trust seals the root key
 * (`system_state.root_provider`: seal-file or pkcs11), and the one HSM's settings (library,
 * token, sealed PIN, the certificates of docs/modules.md#hsm-root-of-trust).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('system_state')
    .addColumn('root_provider', 'text', (c) => c.notNull().defaultTo('seal-file'))
    .execute();
  await db.schema
    .createTable('hsm')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('library', 'text', (c) => c.notNull())
    .addColumn('slot_serial', 'text', (c) => c.notNull())
    .addColumn('token_label', 'text', (c) => c.notNull())
    .addColumn('key_label', 'text', (c) => c.notNull())
    .addColumn('pin_sealed', 'text', (c) => c.notNull())
    .addColumn('bound_at', 'text')
    .addColumn('hsm_certificate', 'text')
    .addColumn('client_certificate', 'text')
    .addColumn('client_key_sealed', 'text')
    .addColumn('server_certificate', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('hsm').execute();
  await db.schema.alterTable('system_state').dropColumn('root_provider').execute();
}
