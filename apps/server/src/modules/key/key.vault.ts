import { algorithmInfo, Usage, type AlgorithmId, type UsageProfileName } from '@ksp/contracts';
import { sign, takesKeyObject, type SignOptions } from '../../platform/crypto/asymmetric.js';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { KeyCache } from './key.cache.js';
import type { KeyMaterial } from './key.material.js';
import type { KeyService } from './key.service.js';
import { addOperationCounts, findKey, findVersion } from './key.store.js';

/** What another module asks of a key pair it had the key store generate. */
export interface VaultKeyPair {
  /** The private key object. */
  id: string;
  /** Its `.pub` half. */
  publicId: string | null;
  algorithm: AlgorithmId;
  /** As generate.ts encodes it: SPKI DER, or the standard's bytes for ML-DSA. */
  publicKey: Buffer;
}

/**
 * The key store as other modules use it (certificates: a CA's signing key and the key pairs
 * issued certificates are made for). Keys made here are ordinary key objects: wrapped at
 * rest, listed on the keys page, audited; a CA's key is a signing key that cannot be deleted
 * (the key list shows it as `ca-<id>`).
 */
export function createKeyVault(deps: {
  db: Db;
  keys: KeyCache;
  material: KeyMaterial;
  service: KeyService;
  clock: Clock;
  audit: AuditWriter;
}) {
  const { db, keys, material, service } = deps;

  function maskFor(algorithm: AlgorithmId, profile: UsageProfileName): number {
    const found = algorithmInfo(algorithm).usageProfiles.find((p) => p.name === profile);
    return found?.mask ?? Usage.Sign | Usage.Verify;
  }

  async function privateRow(domainId: string, keyId: string) {
    const row = await findKey(db, domainId, keyId);
    if (!row || row.object_type !== 'private') return undefined;
    return row;
  }

  return {
    /** Generates a key pair in the caller's domain and records it as `key.create`. */
    async createPair(
      actor: Actor,
      meta: RequestMeta,
      fields: {
        name: string;
        algorithm: AlgorithmId;
        /** The key store profile the pair is used with (RSA and SM2 sign or encrypt, never both). */
        profile: UsageProfileName;
        ca: boolean;
        exportable: boolean;
        description: string;
      },
    ): Promise<VaultKeyPair> {
      const row = await service.create(actor, meta, {
        name: fields.name,
        algorithm: fields.algorithm,
        usage_mask: maskFor(fields.algorithm, fields.profile),
        state: 'active',
        exportable: fields.exportable,
        deletable: !fields.ca,
        description: fields.description,
        labels: {},
        cte: null,
      });
      const version = await findVersion(db, row.id, 1);
      const publicVersion = row.linked_key_id ? await findVersion(db, row.linked_key_id, 1) : undefined;
      const publicKey = publicVersion?.public_key ?? version?.public_key;
      if (!publicKey) throw new Error(`key ${row.id} was generated without a public key`);
      return {
        id: row.id,
        publicId: row.linked_key_id,
        algorithm: fields.algorithm,
        publicKey: Buffer.from(publicKey, 'base64'),
      };
    },

    /**
     * Signs `data` with the current version of a private key of the domain. Refused (4220)
     * unless the key is in use and may sign.
     */
    async sign(
      domainId: string,
      keyId: string,
      data: Buffer,
      options: SignOptions & { certificateSign?: boolean; refusal: () => Error },
    ): Promise<Buffer> {
      const row = await keys.key(domainId, keyId);
      if (!row || row.object_type !== 'private' || row.state !== 'active') throw options.refusal();
      if (options.certificateSign && (row.usage_mask & Usage.Sign) === 0) throw options.refusal();
      const algorithm = row.algorithm as AlgorithmId;
      const open = (wrapped: string) => material.open(db, domainId, keyId, row.current_version, wrapped);
      if (takesKeyObject(algorithm)) {
        const key = await keys.privateKey(keyId, row.current_version, open);
        if (!key) throw options.refusal();
        try {
          return sign(algorithm, key, data, options);
        } finally {
          if (Buffer.isBuffer(key)) key.fill(0);
        }
      }
      const secret = await keys.secret(keyId, row.current_version, open);
      if (!secret) throw options.refusal();
      try {
        return sign(algorithm, secret, data, options);
      } finally {
        secret.fill(0);
      }
    },

    /** The current private material of an exportable key (the caller zeroes it), for encrypted downloads. */
    async exportableMaterial(domainId: string, keyId: string, name: string): Promise<Buffer> {
      const row = await privateRow(domainId, keyId);
      if (!row) throw stateForbids('cert.noPrivateKey');
      if (row.exportable !== 1) throw stateForbids('cert.notExportable', { name });
      const version = await findVersion(db, row.id, row.current_version);
      if (!version?.material_wrapped) throw stateForbids('cert.noPrivateKey');
      return material.open(db, domainId, row.id, row.current_version, version.material_wrapped);
    },

    /**
     * The current material of an AES-256 key of the domain in use, for a TDE agent's
     * configuration (modules/tde-client wraps it to the agent's certificate at once; the caller
     * zeroes it). Audited as a use of the key (`key.agent-deliver`, who = the client). Undefined
     * for another domain's key, another algorithm, or a key not in use: the agent gets no key.
     */
    async agentKey(
      trx: Executor,
      domainId: string,
      keyId: string,
      client: { id: string; name: string },
    ): Promise<{ id: string; name: string; version: number; material: Buffer } | undefined> {
      const row = await findKey(trx, domainId, keyId);
      if (!row || row.algorithm !== 'AES-256' || row.state !== 'active') return undefined;
      const version = await findVersion(trx, row.id, row.current_version);
      if (!version?.material_wrapped) return undefined;
      const secret = await material.open(
        trx,
        domainId,
        row.id,
        row.current_version,
        version.material_wrapped,
      );
      await deps.audit.write(trx, {
        who: { userId: null, username: `client:${client.name}`, domainId, domainName: '' },
        action: 'key.agent-deliver',
        target: row.name,
        result: 'success',
        ip: '',
        objectId: row.id,
        details: { key_id: row.id, version: row.current_version, client_id: client.id },
      });
      return { id: row.id, name: row.name, version: row.current_version, material: secret };
    },

    /**
     * A key of the domain and one of its versions, for a database client's read (modules/tde-database):
     * `version` null is the current one. `material` (the caller zeroes it) only for an AES-256 key
     * in use whose version exists; the caller judges and answers the rest from `key` and `version`.
     * Read from the database each time: a disable or a new version on any node applies at the
     * next read.
     */
    async databaseKey(
      domainId: string,
      keyId: string,
      version: number | null,
    ): Promise<{
      key?: { id: string; name: string; state: string; algorithm: string; current_version: number };
      version?: { number: number; created_at: string; material: Buffer };
    }> {
      const row = await findKey(db, domainId, keyId);
      if (!row) return {};
      const key = {
        id: row.id,
        name: row.name,
        state: row.state,
        algorithm: row.algorithm,
        current_version: row.current_version,
      };
      if (row.algorithm !== 'AES-256' || row.state !== 'active') return { key };
      const number = version ?? row.current_version;
      if (number > row.current_version) return { key };
      const found = await findVersion(db, row.id, number);
      if (!found?.material_wrapped) return { key };
      const secret = await material.open(db, domainId, row.id, number, found.material_wrapped);
      return { key, version: { number, created_at: found.created_at, material: secret } };
    },

    /** Counts uses of keys made outside the crypto API (database reads) in their operation counters. */
    countUses: (counts: ReadonlyMap<string, number>) => addOperationCounts(db, counts),

    /** Whether a private key of the domain is in use (a CA can sign with it). */
    async usable(domainId: string, keyId: string): Promise<boolean> {
      const row = await privateRow(domainId, keyId);
      return row?.state === 'active';
    },
  };
}

export type KeyVault = ReturnType<typeof createKeyVault>;
