import type { Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { KadpOperationTable } from '../../platform/db/schema.js';

/** The name of a key of the domain, if there is one. */
export async function keyName(db: Executor, domainId: string, keyId: string) {
  const key = await db
    .selectFrom('kms_key')
    .select('name')
    .where('id', '=', keyId)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
  return key?.name;
}

export async function domainName(db: Executor, domainId: string) {
  const domain = await db.selectFrom('domain').select('name').where('id', '=', domainId).executeTakeFirst();
  return domain?.name;
}

/** Whether the domain has a KADP client with this id. */
export async function kadpClientExists(db: Executor, domainId: string, id: string): Promise<boolean> {
  const client = await db
    .selectFrom('client')
    .select('id')
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .where('type', '=', 'kadp')
    .executeTakeFirst();
  return client !== undefined;
}

export async function insertOperation(db: Executor, row: KadpOperationTable): Promise<void> {
  await db.insertInto('kadp_operation').values(row).execute();
}

/** A page of a client's operations, newest first, with their total. */
export async function listOperations(db: Executor, clientId: string, page: PageQuery) {
  return pagedRows(db.selectFrom('kadp_operation').where('client_id', '=', clientId), page, (q) =>
    q.selectAll().orderBy('at', 'desc').orderBy('id', 'desc'),
  );
}
