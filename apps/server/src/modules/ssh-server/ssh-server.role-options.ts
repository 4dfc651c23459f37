import { sql } from 'kysely';
import { escapeLike, type Db } from '../../platform/db/database.js';
import type { Actor } from '../../platform/http/route.js';

/**
 * The roles a server may let open a terminal (`terminal_roles`), for the server form's picker:
 * the built-in roles and the current domain's own, by name, a page at a time. A role of
 * another domain is never listed, even when its id is asked for.
 */
export function createRoleOptions(db: Db) {
  return {
    async list(
      actor: Actor,
      query: { page: number; page_size: number; name?: string | undefined; ids?: string | undefined },
    ) {
      let q = db
        .selectFrom('role')
        .where((eb) => eb.or([eb('domain_id', 'is', null), eb('domain_id', '=', actor.domainId)]));
      // Case-insensitive on both engines (PostgreSQL's LIKE is not).
      const part = query.name?.toLowerCase();
      if (part) q = q.where(sql<boolean>`lower(name) like ${`%${escapeLike(part)}%`} escape '\\'`);
      if (query.ids) q = q.where('id', 'in', query.ids.toLowerCase().split(','));
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const data = await q
        .select(['id', 'name', 'type'])
        .orderBy('type')
        .orderBy('name')
        .orderBy('id')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data, total: Number(total?.n ?? 0) };
    },
  };
}

export type RoleOptions = ReturnType<typeof createRoleOptions>;
