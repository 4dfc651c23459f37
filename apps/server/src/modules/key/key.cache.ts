import { performance } from 'node:perf_hooks';
import type { Db } from '../../platform/db/database.js';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { findVersion } from './key.store.js';

/**
 * How long a node reuses a key's row and versions for cryptographic operations before it
 * reads them again. Changes through this node apply at once (the key service calls
 * `forget`); changes made on another node of a cluster apply here within this time.
 * Only rows are kept: key material stays wrapped by the domain KEK, and is unwrapped for
 * one operation at a time.
 */
const KEY_CACHE_MS = 1000;
const KEY_CACHE_SIZE = 10_000;

interface Entry {
  row: KeyTable;
  versions: Map<number, KeyVersionTable>;
  readAt: number;
}

export function createKeyCache(db: Db) {
  const entries = new Map<string, Entry>();
  let generation = 0;

  async function entry(id: string): Promise<Entry | undefined> {
    const now = performance.now();
    const hit = entries.get(id);
    if (hit && now - hit.readAt < KEY_CACHE_MS) return hit;
    entries.delete(id);
    const seen = generation;
    const row = await db.selectFrom('kms_key').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const fresh: Entry = { row, versions: new Map(), readAt: now };
    // A change made while this read was under way must not be hidden by it.
    if (seen === generation) {
      if (entries.size >= KEY_CACHE_SIZE) entries.delete(entries.keys().next().value!);
      entries.set(id, fresh);
    }
    return fresh;
  }

  return {
    /** The key, if it exists in the domain. */
    async key(domainId: string, id: string): Promise<KeyTable | undefined> {
      const found = await entry(id);
      return found?.row.domain_id === domainId ? found.row : undefined;
    },
    async version(keyId: string, version: number): Promise<KeyVersionTable | undefined> {
      const found = await entry(keyId);
      const cached = found?.versions.get(version);
      if (cached) return cached;
      const seen = generation;
      const row = await findVersion(db, keyId, version);
      if (row && found && seen === generation) found.versions.set(version, row);
      return row;
    },
    /** Called after every change to keys made on this node. */
    forget(): void {
      generation++;
      entries.clear();
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
