import type { Db } from '../db/database.js';
import { createDomainSealer } from './domain-sealer.js';
import type { Keyring } from './keyring.js';

/**
 * Seals small secrets (directory bind passwords, credentials) under a domain's KEK, bound
 * to their owner record by the additional data `ksp/secret/<owner>`.
 */
export function createSecretBox(deps: { db: Db; keyring: Keyring }) {
  const sealer = createDomainSealer(deps);
  const aad = (owner: string) => `ksp/secret/${owner}`;
  return {
    async seal(domainId: string, owner: string, secret: string): Promise<string> {
      return sealer.seal(deps.db, domainId, aad(owner), Buffer.from(secret, 'utf8'));
    },
    async open(domainId: string, owner: string, sealed: string): Promise<string> {
      return (await sealer.open(deps.db, domainId, aad(owner), sealed)).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
