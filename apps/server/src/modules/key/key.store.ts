import { escapeLike, type Executor } from '../../platform/db/database.js';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { keyColumns, keyVersionColumns } from './key.columns.js';

export async function insertKey(db: Executor, row: KeyTable): Promise<void> {
  await db.insertInto('kms_key').values(row).execute();
}

export async function insertKeyVersion(db: Executor, row: KeyVersionTable): Promise<void> {
  await db.insertInto('kms_key_version').values(row).execute();
}

export async function findKey(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('kms_key')
    .select(keyColumns)
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A key by id whatever its domain: for the crypto API's cache, which checks the domain itself. */
export async function readKey(db: Executor, id: string) {
  return db.selectFrom('kms_key').select(keyColumns).where('id', '=', id).executeTakeFirst();
}

export async function findKeyByName(db: Executor, domainId: string, name: string) {
  return db
    .selectFrom('kms_key')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function findVersion(db: Executor, keyId: string, version: number) {
  return db
    .selectFrom('kms_key_version')
    .select(keyVersionColumns)
    .where('key_id', '=', keyId)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function listVersions(db: Executor, keyId: string) {
  return db
    .selectFrom('kms_key_version')
    .select(keyVersionColumns)
    .where('key_id', '=', keyId)
    .orderBy('version', 'desc')
    .execute();
}

export interface KeyFilter {
  name?: string | undefined;
  states?: string[] | undefined;
  algorithm?: string | undefined;
  type?: KeyTable['object_type'] | undefined;
  usageBits?: number | undefined;
}

export async function listKeys(
  db: Executor,
  domainId: string,
  filter: KeyFilter,
  offset: number,
  limit: number,
) {
  let q = db.selectFrom('kms_key').where('domain_id', '=', domainId);
  if (filter.name) q = q.where('name', 'like', `%${escapeLike(filter.name)}%`);
  if (filter.states) q = q.where('state', 'in', filter.states);
  if (filter.algorithm) q = q.where('algorithm', '=', filter.algorithm);
  if (filter.type) q = q.where('object_type', '=', filter.type);
  const bits = filter.usageBits;
  if (bits) {
    // Integer bit test that both engines evaluate the same way.
    q = q.where((eb) => eb(eb('usage_mask', '&', bits), '=', bits));
  }
  const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
  const rows = await q
    .select(keyColumns)
    .orderBy('created_at', 'desc')
    .orderBy('name')
    .offset(offset)
    .limit(limit)
    .execute();
  return { rows, total: Number(total?.n ?? 0) };
}

export async function updateKey(
  db: Executor,
  id: string,
  changes: Partial<Omit<KeyTable, 'id' | 'domain_id'>>,
) {
  await db.updateTable('kms_key').set(changes).where('id', '=', id).execute();
}

export async function wipeMaterial(db: Executor, keyId: string): Promise<void> {
  await db
    .updateTable('kms_key_version')
    .set({ material_wrapped: null })
    .where('key_id', '=', keyId)
    .execute();
}

/** Deletes keys; the links between halves of a pair go first, so a pair deletes in one call. */
export async function deleteKeys(db: Executor, ids: string[]): Promise<number> {
  await db.updateTable('kms_key').set({ linked_key_id: null }).where('id', 'in', ids).execute();
  const result = await db.deleteFrom('kms_key').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countOperation(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('kms_key')
    .set((eb) => ({ operations: eb('operations', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** The audit records about the given keys, newest first. */
export async function listKeyAudit(
  db: Executor,
  domainId: string,
  keyIds: string[],
  offset: number,
  limit: number,
) {
  const q = db.selectFrom('audit_log').where('domain_id', '=', domainId).where('object_id', 'in', keyIds);
  const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
  const rows = await q
    .select(['id', 'at', 'username', 'action', 'result', 'source_ip', 'count'])
    .orderBy('at', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  return { data: rows, total: Number(total?.n ?? 0) };
}
