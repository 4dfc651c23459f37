import { randomUUID } from 'node:crypto';
import { builtInConfig } from '@ksp/contracts';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { ConfigTable } from '../../platform/db/schema.js';

export async function ensureDefaultConfig(
  db: Executor,
  defaults: Record<keyof typeof builtInConfig, string>,
  now: string,
): Promise<void> {
  for (const [key, def] of Object.entries(builtInConfig)) {
    await db
      .insertInto('config')
      .values({
        id: randomUUID(),
        key,
        value: defaults[key as keyof typeof builtInConfig],
        is_public: def.public ? 1 : 0,
        built_in: 1,
        read_only: def.readOnly ? 1 : 0,
        description: def.description,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  }
  // The version entry always tells the running release.
  await db.updateTable('config').set({ value: defaults.version }).where('key', '=', 'version').execute();
}

export async function listConfig(db: Executor, args: { key?: string | undefined }, page: PageQuery) {
  let q = db.selectFrom('config');
  if (args.key) q = q.where('key', 'like', `%${escapeLike(args.key)}%`);
  return pagedRows(q, page, (found) => found.selectAll().orderBy('built_in', 'desc').orderBy('key'));
}

export async function publicConfig(db: Executor) {
  return db.selectFrom('config').select(['key', 'value']).where('is_public', '=', 1).orderBy('key').execute();
}

export async function configValue(db: Executor, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('config').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function findConfigById(db: Executor, id: string) {
  return db.selectFrom('config').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findConfigByKey(db: Executor, key: string) {
  return db.selectFrom('config').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function findConfigByIds(db: Executor, ids: string[]) {
  return db.selectFrom('config').selectAll().where('id', 'in', ids).execute();
}

export async function insertConfig(db: Executor, row: ConfigTable): Promise<void> {
  await db.insertInto('config').values(row).execute();
}

export async function updateConfig(
  db: Executor,
  id: string,
  changes: Partial<Omit<ConfigTable, 'id' | 'key'>>,
) {
  await db.updateTable('config').set(changes).where('id', '=', id).execute();
}

export async function deleteConfig(db: Executor, ids: string[]): Promise<number> {
  const result = await db.deleteFrom('config').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
