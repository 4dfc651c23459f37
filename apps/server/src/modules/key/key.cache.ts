import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/auth/session.service.js';
import { parsePrivateKey, type PrivateKeyInput } from '../../platform/crypto/asymmetric.js';
import type { Db } from '../../platform/db/database.js';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { findVersion, readKey } from './key.store.js';

/**
 * How long a node reuses a key for cryptographic operations before it reads it again.
 * Changes through this node apply at once (the key service calls `forget`); changes made
 * on another node of a cluster apply here within this time. Unwrapped material is kept no
 * longer either: it is zeroed when its entry expires, is forgotten or is pushed out. Parsed
 * private keys go at the same moments: OpenSSL cannot be told to clear a key object, but
 * it clears the key when the object is freed, once nothing here refers to it any more.
 */
const KEY_CACHE_MS = 1000;
const KEY_CACHE_SIZE = 10_000;

interface Version {
  row: KeyVersionTable;
  /** The material unwrapped by the domain KEK; zeroed when the entry goes. */
  secret?: Buffer;
  /** The private key parsed from that material (RSA, EC, Ed25519); dropped when the entry goes. */
  privateKey?: KeyObject;
}

interface Entry {
  row: KeyTable;
  versions: Map<number, Version>;
  readAt: number;
}

function wipe(entry: Entry): void {
  for (const v of entry.versions.values()) {
    // A caller holding this version object must see no secret (nor key object) rather than a zeroed one.
    v.secret?.fill(0);
    delete v.secret;
    delete v.privateKey;
  }
  entry.versions.clear();
}

/** `clock` is the server's: a test moves it to see an entry expire. */
export function createKeyCache(db: Db, clock: Clock) {
  const entries = new Map<string, Entry>();
  let generation = 0;
  const drop = (id: string) => {
    const gone = entries.get(id);
    if (gone) wipe(gone);
    entries.delete(id);
  };
  /** Whether what was read since `seen` may be kept: no change since, and the entry still cached. */
  const keeps = (keyId: string, found: Entry | undefined, seen: number): found is Entry =>
    !!found && seen === generation && entries.get(keyId) === found;
  // Unused entries do not wait for a caller to notice they expired.
  const sweeper = setInterval(() => {
    const now = clock().getTime();
    for (const [id, e] of entries) if (now - e.readAt >= KEY_CACHE_MS) drop(id);
  }, KEY_CACHE_MS);
  sweeper.unref();

  async function entry(id: string): Promise<Entry | undefined> {
    const now = clock().getTime();
    const hit = entries.get(id);
    if (hit && now - hit.readAt < KEY_CACHE_MS) return hit;
    drop(id);
    const seen = generation;
    const row = await readKey(db, id);
    if (!row) return undefined;
    const fresh: Entry = { row, versions: new Map(), readAt: now };
    // A change made while this read was under way must not be hidden by it.
    if (seen === generation && !entries.has(id)) {
      if (entries.size >= KEY_CACHE_SIZE) drop(entries.keys().next().value!);
      entries.set(id, fresh);
    }
    return fresh;
  }

  async function version(keyId: string, number: number) {
    const found = await entry(keyId);
    const cached = found?.versions.get(number);
    if (cached) return { found, cached };
    const seen = generation;
    const row = await findVersion(db, keyId, number);
    if (!row) return { found, cached: undefined };
    const fresh: Version = { row };
    if (keeps(keyId, found, seen)) found.versions.set(number, fresh);
    return { found, cached: fresh };
  }

  return {
    /** The key, if it exists in the domain. */
    async key(domainId: string, id: string): Promise<KeyTable | undefined> {
      const found = await entry(id);
      return found?.row.domain_id === domainId ? found.row : undefined;
    },
    async version(keyId: string, number: number): Promise<KeyVersionTable | undefined> {
      return (await version(keyId, number)).cached?.row;
    },
    /**
     * A copy of the version's material, unwrapped by `open` at most once per entry; the
     * caller zeroes its copy after use. Undefined when the material is gone (destroyed).
     */
    async secret(
      keyId: string,
      number: number,
      open: (wrapped: string) => Promise<Buffer>,
    ): Promise<Buffer | undefined> {
      const { found, cached } = await version(keyId, number);
      if (!cached?.row.material_wrapped) return undefined;
      if (cached.secret) return Buffer.from(cached.secret);
      const seen = generation;
      const opened = await open(cached.row.material_wrapped);
      if (keeps(keyId, found, seen) && !cached.secret) cached.secret = Buffer.from(opened);
      return opened;
    },
    /**
     * The version's private key object (PKCS#8 material: RSA, EC, Ed25519), parsed at most
     * once per entry and shared by the callers until the entry goes; the material it was
     * parsed from is not kept beside it. Material that does not parse is answered as a copy
     * of its bytes, for the primitive to refuse as it refuses stored DER (the caller zeroes
     * it). Undefined when the material is gone (destroyed).
     */
    async privateKey(
      keyId: string,
      number: number,
      open: (wrapped: string) => Promise<Buffer>,
    ): Promise<PrivateKeyInput | undefined> {
      const { found, cached } = await version(keyId, number);
      if (!cached?.row.material_wrapped) return undefined;
      if (cached.privateKey) return cached.privateKey;
      const seen = generation;
      const secret = cached.secret ? Buffer.from(cached.secret) : await open(cached.row.material_wrapped);
      let key: KeyObject;
      try {
        key = parsePrivateKey(secret);
      } catch {
        return secret;
      }
      secret.fill(0);
      if (keeps(keyId, found, seen)) cached.privateKey ??= key;
      return key;
    },
    /** Called after every change to keys made on this node. */
    forget(): void {
      generation++;
      for (const id of [...entries.keys()]) drop(id);
    },
    close(): void {
      clearInterval(sweeper);
      for (const id of [...entries.keys()]) drop(id);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
