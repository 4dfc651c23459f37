import type { Executor } from '../../platform/db/database.js';
import type { LicenseTable } from '../../platform/db/schema.js';

/** Every activated licence, oldest activation first. */
export async function allLicenses(db: Executor): Promise<LicenseTable[]> {
  return db.selectFrom('license').selectAll().orderBy('activated_at').execute();
}

export async function findLicense(db: Executor, rowId: string): Promise<LicenseTable | undefined> {
  return db.selectFrom('license').selectAll().where('id', '=', rowId).executeTakeFirst();
}

export async function insertLicense(db: Executor, row: LicenseTable): Promise<void> {
  await db.insertInto('license').values(row).execute();
}

export async function deleteLicense(db: Executor, rowId: string): Promise<void> {
  await db.deleteFrom('license').where('id', '=', rowId).execute();
}

/** The installation's id, which the lock code is made from. */
export async function installId(db: Executor): Promise<string> {
  const row = await db
    .selectFrom('license_install')
    .select('install_id')
    .where('id', '=', 'install')
    .executeTakeFirstOrThrow();
  return row.install_id;
}

/** How many nodes report themselves (more than one: a cluster). */
export async function countClusterNodes(db: Executor): Promise<number> {
  return (await db.selectFrom('cluster_node').select('name').execute()).length;
}

/** Enrolled clients of `type` that are not deleted (modules/client). */
export async function countLiveClients(db: Executor, type: string): Promise<number> {
  const row = await db
    .selectFrom('client')
    .where('type', '=', type)
    .where('state', '!=', 'deleted')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The SMS's managed servers of every domain (modules/ssh-server). */
export async function countSshServers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('ssh_server')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Keys of the tally whose state is not one of `goneStates`. */
export async function countKeysBesides(db: Executor, goneStates: readonly string[]): Promise<number> {
  const row = await db
    .selectFrom('kms_key_tally')
    .where('state', 'not in', goneStates)
    .select((eb) => eb.fn.sum<string | number>('keys').as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Updates `feature`'s row of `license_quota` (migration 034): the row's lock makes concurrent
 * claims on any node count one after another until the caller's transaction ends.
 */
export async function lockQuota(trx: Executor, feature: string): Promise<void> {
  await trx
    .insertInto('license_quota')
    .values({ feature, claims: 1 })
    .onConflict((oc) =>
      oc.column('feature').doUpdateSet((eb) => ({ claims: eb('license_quota.claims', '+', 1) })),
    )
    .execute();
}
