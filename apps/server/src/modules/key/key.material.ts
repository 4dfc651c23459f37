import { createHash } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { Keyring } from '../../platform/keyring/keyring.js';

/**
 * Key material at rest: sealed under the domain's KEK with "ksp/key/<id>/<version>" as
 * additional data, so a wrapped blob moved to another key or version fails to open.
 */
export function createKeyMaterial(deps: { keyring: Keyring }) {
  const sealer = createDomainSealer(deps);
  const aad = (keyId: string, version: number) => `ksp/key/${keyId}/${version}`;
  return {
    seal: (db: Executor, domainId: string, keyId: string, version: number, material: Buffer) =>
      sealer.seal(db, domainId, aad(keyId, version), material),
    open: (db: Executor, domainId: string, keyId: string, version: number, wrapped: string) =>
      sealer.open(db, domainId, aad(keyId, version), wrapped),
  };
}

export type KeyMaterial = ReturnType<typeof createKeyMaterial>;

export const fingerprintOf = (publicKey: Buffer) => createHash('sha256').update(publicKey).digest('hex');
