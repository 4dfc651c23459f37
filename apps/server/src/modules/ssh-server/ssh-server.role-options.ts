import type { Db } from '../../platform/db/database.js';
import type { Actor } from '../../platform/http/route.js';
import { listRoleOptions } from './ssh-server.store.js';

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
      const { rows, total } = await listRoleOptions(db, actor.domainId, query, query);
      return { data: rows, total };
    },
  };
}

export type RoleOptions = ReturnType<typeof createRoleOptions>;
