import type { Executor } from '../db/database.js';
import { aeadOpen, aeadSeal } from './aead.js';
import type { Keyring } from './keyring.js';

/**
 * Everything kept under a domain's KEK (key material, directory bind passwords,
 * credentials) is sealed here: AES-256-GCM (`aead.ts`) with additional data naming the
 * record it belongs to, so a blob copied to another record fails to open.
 */
export function createDomainSealer(deps: { keyring: Keyring }) {
  async function kek(db: Executor, domainId: string): Promise<Buffer> {
    // The KEK unwrapped earlier saves a database read on every cryptographic call.
    const cached = deps.keyring.cachedKek(domainId);
    if (cached) return cached;
    const row = await db
      .selectFrom('domain')
      .select('kek_wrapped')
      .where('id', '=', domainId)
      .executeTakeFirstOrThrow();
    return deps.keyring.domainKek(domainId, row.kek_wrapped);
  }
  return {
    /** `owner` is the additional data: the same must be given to open the blob. */
    async seal(db: Executor, domainId: string, owner: string, plaintext: Buffer): Promise<string> {
      return aeadSeal(await kek(db, domainId), plaintext, owner);
    },
    async open(db: Executor, domainId: string, owner: string, sealed: string): Promise<Buffer> {
      return aeadOpen(await kek(db, domainId), sealed, owner);
    },
  };
}

export type DomainSealer = ReturnType<typeof createDomainSealer>;
