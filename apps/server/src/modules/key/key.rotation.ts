import type { AlgorithmId } from '@ksp/contracts';
import type { Db, Executor } from '../../platform/db/database.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { KeyService } from './key.service.js';
import { rotatableKeys } from './key.store.js';

/** Which keys a rotation covers (the scheduler's key query); every condition given must hold. */
export interface RotationQuery {
  algorithms?: readonly AlgorithmId[] | undefined;
  /** `*` any characters, `?` one character; the whole name must match. */
  name_pattern?: string | undefined;
  labels?: Record<string, string> | undefined;
  /** The current version is at least this many days old. */
  min_age_days?: number | undefined;
}

/** A glob of `*` and `?` as an anchored regular expression (everything else literal). */
function globPattern(glob: string): RegExp {
  const body = [...glob]
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'su');
}

/**
 * Key rotation as other modules ask for it (the scheduler): which keys of a domain a query
 * matches, and one key's rotation ("add version") with the caller's work in its transaction.
 */
export function createKeyRotation(deps: { db: Db; service: KeyService }) {
  const { db, service } = deps;
  return {
    /**
     * The keys of one domain the query matches, oldest first: keys in use that can get a new
     * version (symmetric keys and the private half of pairs, which rotates its public half
     * with it); public keys are never matched themselves.
     */
    async match(domainId: string, query: RotationQuery, now: Date): Promise<{ id: string; name: string }[]> {
      const before =
        query.min_age_days === undefined
          ? undefined
          : new Date(now.getTime() - query.min_age_days * 86_400_000).toISOString();
      const rows = await rotatableKeys(db, domainId, { algorithms: query.algorithms, versionBefore: before });
      const name = query.name_pattern ? globPattern(query.name_pattern) : null;
      const wanted = Object.entries(query.labels ?? {});
      return rows
        .filter((r) => !name || name.test(r.name))
        .filter((r) => {
          if (wanted.length === 0) return true;
          const labels = JSON.parse(r.labels) as Record<string, string>;
          return wanted.every(([k, v]) => labels[k] === v);
        })
        .map((r) => ({ id: r.id, name: r.name }));
    },
    /**
     * Adds a version to one key; `within` runs in the same transaction with the version being
     * made (if it throws, the rotation is rolled back). Answers the new version.
     */
    async rotate(
      actor: Actor,
      meta: RequestMeta,
      keyId: string,
      options: {
        within?: (trx: Executor, version: number) => Promise<void>;
        details?: Record<string, string | number>;
      },
    ): Promise<number> {
      const row = await service.addVersion(actor, meta, keyId, options);
      return row.version;
    },
  };
}

export type KeyRotation = ReturnType<typeof createKeyRotation>;
