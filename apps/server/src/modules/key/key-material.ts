import { createHash } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import { aeadOpen, aeadSeal } from '../../platform/keyring/aead.js';
import type { Keyring } from '../../platform/keyring/keyring.js';

/**
 * Key material at rest: AES-256-GCM under the domain's KEK, with "ksp/key/<id>/<version>"
 * as additional data, so a wrapped blob moved to another key or version fails to open.
 */
export function createKeyMaterial(deps: { keyring: Keyring }) {
  async function kek(db: Executor, domainId: string): Promise<Buffer> {
    const cached = deps.keyring.cachedKek(domainId);
    if (cached) return cached;
    const row = await db
      .selectFrom('domain')
      .select('kek_wrapped')
      .where('id', '=', domainId)
      .executeTakeFirstOrThrow();
    return deps.keyring.domainKek(domainId, row.kek_wrapped);
  }
  const aad = (keyId: string, version: number) => `ksp/key/${keyId}/${version}`;
  return {
    async seal(
      db: Executor,
      domainId: string,
      keyId: string,
      version: number,
      material: Buffer,
    ): Promise<string> {
      return aeadSeal(await kek(db, domainId), material, aad(keyId, version));
    },
    async open(
      db: Executor,
      domainId: string,
      keyId: string,
      version: number,
      wrapped: string,
    ): Promise<Buffer> {
      return aeadOpen(await kek(db, domainId), wrapped, aad(keyId, version));
    },
  };
}

export type KeyMaterial = ReturnType<typeof createKeyMaterial>;

export const fingerprintOf = (publicKey: Buffer) => createHash('sha256').update(publicKey).digest('hex');
