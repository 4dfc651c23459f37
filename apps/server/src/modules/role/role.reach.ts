import type { Executor } from '../../platform/db/database.js';
import { notFound } from '../../platform/errors.js';
import type { Actor } from '../../platform/http/route.js';
import { findRoles } from './role.store.js';

/**
 * Which roles a caller sees and may grant: the built-in roles, and the custom roles of its
 * current domain; with system scope, every role. Another domain's role answers 4040, as
 * if it did not exist.
 */
export function roleVisibleTo(actor: Actor, role: { domain_id: string | null }): boolean {
  return actor.systemScope || role.domain_id === null || role.domain_id === actor.domainId;
}

/** Throws 4040 for the first id that is unknown or not visible to the caller. */
export async function assertRolesVisible(db: Executor, actor: Actor, ids: string[]): Promise<void> {
  const found = await findRoles(db, ids);
  const missing = ids.find((id) => !found.some((r) => r.id === id && roleVisibleTo(actor, r)));
  if (missing) throw notFound('role.notFound', { id: missing });
}
