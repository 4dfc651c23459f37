import type { Db } from '../db/database.js';
import { aeadOpen, aeadSeal } from './aead.js';
import type { Keyring } from './keyring.js';

/**
 * Seals small secrets (directory bind passwords, credentials) under a domain's KEK, bound
 * to their owner record by the additional data, so a blob copied to another row fails.
 */
export function createSecretBox(deps: { db: Db; keyring: Keyring }) {
  async function kek(domainId: string): Promise<Buffer> {
    const row = await deps.db
      .selectFrom('domain')
      .select('kek_wrapped')
      .where('id', '=', domainId)
      .executeTakeFirstOrThrow();
    return deps.keyring.domainKek(domainId, row.kek_wrapped);
  }
  return {
    async seal(domainId: string, owner: string, secret: string): Promise<string> {
      return aeadSeal(await kek(domainId), Buffer.from(secret, 'utf8'), `ksp/secret/${owner}`);
    },
    async open(domainId: string, owner: string, sealed: string): Promise<string> {
      return aeadOpen(await kek(domainId), sealed, `ksp/secret/${owner}`).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
