import { ROOT_DOMAIN } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import { forbidden, notFound } from '../../platform/errors.js';
import type { Actor } from '../../platform/http/route.js';
import { memberDomainIds, rootDomainId } from './domain.store.js';

/**
 * How far a caller reaches among users and domains (docs/security-model.md).
 *
 * - A caller with system scope (signed in to the root domain) reaches every user and domain.
 * - Any other caller sees the members of its current domain, and manages a user only when
 *   every domain the user belongs to is one the caller belongs to too, and none is root.
 *   Otherwise a change to that user would reach into a domain the caller does not
 *   administer (a root administrator's password, say).
 */

/** The ids of the domains a user belongs to. */
export async function domainIdsOf(db: Executor, userId: string): Promise<Set<string>> {
  return new Set(await memberDomainIds(db, userId));
}

/**
 * The domains whose names a caller may see: all for system scope (null), else the domains
 * the caller belongs to.
 */
export async function visibleDomainIds(db: Executor, actor: Actor): Promise<Set<string> | null> {
  return actor.systemScope ? null : domainIdsOf(db, actor.userId);
}

/** The user's domains and the caller's, and whether the user belongs anywhere beyond the caller's. */
async function reachOf(db: Executor, actor: Actor, userId: string) {
  const [theirs, mine, root] = await Promise.all([
    domainIdsOf(db, userId),
    domainIdsOf(db, actor.userId),
    rootDomainId(db),
  ]);
  const beyond = [...theirs].some((d) => d === root || !mine.has(d));
  return { theirs, mine, beyond };
}

/** Answers whether the caller may change a user (see above); never throws. */
export async function canManageUser(db: Executor, actor: Actor, userId: string): Promise<boolean> {
  if (actor.systemScope) return true;
  const { theirs, beyond } = await reachOf(db, actor, userId);
  return theirs.has(actor.domainId) && !beyond;
}

/**
 * Throws unless the caller may change the user: 4040 when the user is not a member of the
 * caller's domain (as if it did not exist), 4030 when it is but also belongs elsewhere.
 */
export async function assertManageable(
  db: Executor,
  actor: Actor,
  user: { id: string; username: string },
): Promise<void> {
  if (actor.systemScope) return;
  if (!(await domainIdsOf(db, user.id)).has(actor.domainId)) throw notFound('user.notFound', { id: user.id });
  if (!(await canManageUser(db, actor, user.id))) throw forbidden('user.outOfReach', { name: user.username });
}

/**
 * Throws unless the caller may change who belongs to a domain: system scope, or the
 * caller's own current domain (never root from elsewhere).
 */
export function assertMembershipReach(actor: Actor, domain: { id: string; name: string }): void {
  if (actor.systemScope) return;
  if (domain.id !== actor.domainId || domain.name === ROOT_DOMAIN) {
    throw forbidden('domain.outOfReach', { domain: actor.domainName });
  }
}

/**
 * Throws unless the caller may bring a user into its current domain: a user it shares a
 * domain with (4040 otherwise, as if unknown) and that belongs to no domain beyond its
 * reach (4030).
 */
export async function assertAddable(
  db: Executor,
  actor: Actor,
  user: { id: string; username: string },
): Promise<void> {
  if (actor.systemScope) return;
  const { theirs, mine, beyond } = await reachOf(db, actor, user.id);
  if (![...theirs].some((d) => mine.has(d))) throw notFound('user.notFound', { id: user.id });
  if (beyond) throw forbidden('user.outOfReach', { name: user.username });
}
