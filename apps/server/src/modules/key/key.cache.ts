import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/auth/session.service.js';
import { parsePrivateKey, type PrivateKeyInput } from '../../platform/crypto/asymmetric.js';
import type { Db } from '../../platform/db/database.js';
import type { KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { createFreshCache } from '../../platform/fresh-cache.js';
import { findVersion, readKey } from './key.store.js';

/**
 * How long a node reuses a key for cryptographic operations before it reads it again.
 * Changes through this node apply at once (the key service calls `forget`); changes made
 * on another node of a cluster apply here within this time. Unwrapped material is kept no
 * longer either: it is zeroed when its entry expires, is replaced by a newer read, is
 * forgotten or is pushed out. Parsed private keys go at the same moments: OpenSSL cannot be
 * told to clear a key object, but it clears the key when the object is freed, once nothing
 * here refers to it any more.
 *
 * A key in use is read again in the background in the second half of its entry's life, with
 * the versions its entry had read (`platform/fresh-cache.ts`); callers that miss together share
 * one read, and the material of a version is unwrapped (and parsed) once per entry, whoever
 * asks for it meanwhile.
 */
const KEY_CACHE_MS = 1000;
const KEY_CACHE_SIZE = 10_000;

interface Version {
  row: KeyVersionTable;
  /** The material unwrapped by the domain KEK; zeroed when the entry goes. */
  secret?: Buffer;
  /** The private key parsed from that material (RSA, EC, Ed25519); dropped when the entry goes. */
  privateKey?: KeyObject;
  /** The unwrap (or parse) under way: callers that ask meanwhile wait for it. */
  opening?: Promise<unknown>;
}

interface Entry {
  row: KeyTable;
  versions: Map<number, Version>;
  /** Version reads under way. */
  reading: Map<number, Promise<Version | undefined>>;
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
  let generation = 0;
  const cache = createFreshCache<Entry>({
    ttlMs: KEY_CACHE_MS,
    size: KEY_CACHE_SIZE,
    now: () => clock().getTime(),
    async read(id, previous) {
      const row = await readKey(db, id);
      if (!row) return undefined;
      const fresh: Entry = { row, versions: new Map(), reading: new Map() };
      // A refresh reads again the versions in use, so that no caller waits for them.
      const numbers = previous ? [...previous.versions.keys()] : [];
      const rows = await Promise.all(numbers.map((n) => findVersion(db, id, n)));
      for (const v of rows) if (v) fresh.versions.set(Number(v.version), { row: v });
      return fresh;
    },
    dispose: wipe,
  });
  /** Whether what was read since `seen` may be kept: no change since, and the entry still cached. */
  const keeps = (keyId: string, found: Entry | undefined, seen: number): found is Entry =>
    !!found && seen === generation && cache.peek(keyId) === found;

  const entry = (id: string) => cache.get(id);

  async function version(keyId: string, number: number) {
    const found = await entry(keyId);
    const cached = found?.versions.get(number);
    if (cached) return { found, cached };
    const reading = found?.reading.get(number);
    if (reading) return { found, cached: await reading };
    const seen = generation;
    const read = findVersion(db, keyId, number).then((row) => {
      if (!row) return undefined;
      const fresh: Version = { row };
      if (keeps(keyId, found, seen)) found.versions.set(number, fresh);
      return fresh;
    });
    if (found && keeps(keyId, found, seen)) {
      found.reading.set(number, read);
      const done = () => found.reading.delete(number);
      read.then(done, done);
    }
    return { found, cached: await read };
  }

  /** Waits until no unwrap (or parse) of `cached` is under way; one may have failed. */
  async function settled(cached: Version): Promise<void> {
    while (cached.opening) await cached.opening.catch(() => undefined);
  }

  /** Runs `work` as the version's one unwrap under way. */
  function opening<T>(cached: Version, work: Promise<T>): Promise<T> {
    cached.opening = work;
    const done = () => {
      if (cached.opening === work) delete cached.opening;
    };
    work.then(done, done);
    return work;
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
      if (cached.opening) await settled(cached);
      if (cached.secret) return Buffer.from(cached.secret);
      const seen = generation;
      return opening(
        cached,
        open(cached.row.material_wrapped).then((opened) => {
          if (keeps(keyId, found, seen) && !cached.secret) cached.secret = Buffer.from(opened);
          return opened;
        }),
      );
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
      if (cached.opening) await settled(cached);
      if (cached.privateKey) return cached.privateKey;
      const seen = generation;
      const wrapped = cached.row.material_wrapped;
      const parse = async (): Promise<PrivateKeyInput> => {
        const secret = cached.secret ? Buffer.from(cached.secret) : await open(wrapped);
        let key: KeyObject;
        try {
          key = parsePrivateKey(secret);
        } catch {
          return secret;
        }
        secret.fill(0);
        if (keeps(keyId, found, seen)) cached.privateKey ??= key;
        return key;
      };
      return opening(cached, parse());
    },
    /** Called after every change to keys made on this node. */
    forget(): void {
      generation++;
      cache.forget();
    },
    close(): void {
      generation++;
      cache.close();
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
