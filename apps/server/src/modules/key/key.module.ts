import { createCryptoPool } from '../../platform/crypto/worker-pool.js';
import type { OpClass } from '@ksp/contracts';
import type { KspModule, ModuleServices } from '../../platform/module.js';
import type { KeyTable } from '../../platform/db/schema.js';
import { cryptoRoutes } from './crypto.routes.js';
import { createCryptoService, type CryptoService } from './crypto.service.js';
import { keyColumns, keyVersionColumns } from './key.columns.js';
import { createKeyMaterial } from './key.material.js';
import { createKeyCache } from './key.cache.js';
import { keyRoutes } from './key.routes.js';
import { createKeyService, type KeyService } from './key.service.js';
import { addKmipTotals, keyTallyFigures, rotationFigures } from './key.store.js';
import { createKeyVault, type KeyVault } from './key.vault.js';
import { createKeyRotation, type KeyRotation } from './key.rotation.js';

/** What the dashboard reads of keys: counts only. */
const keyFigures = { keyTallyFigures, rotationFigures };

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Key pairs other modules have the key store make and sign with (certificates). */
    keyVault: KeyVault;
    keyFigures: typeof keyFigures;
    /** Rotation of matched keys (the scheduler's key-rotation tasks). */
    keyRotation: KeyRotation;
    /** The crypto API's operations, for callers authenticated otherwise (KADP clients: modules/kadp-ops). */
    crypto: CryptoService;
    /** The key calls' service, for KMIP operations (modules/kmip), and the KMIP total's counter. */
    keys: KeyService & { addKmipTotals: (counts: ReadonlyMap<string, number>) => Promise<void> };
  }
}

const tallyOrder = (k: KeyTable) =>
  `${k.domain_id}\u0000${k.state}\u0000${k.algorithm}\u0000${k.object_type}\u0000${k.created_at.slice(0, 7)}`;

/** Keys (lifecycle, import, export) and the cryptographic API over them. */
export const keyModule: KspModule = {
  name: 'key',
  register(ctx) {
    const { db, clock, journal } = ctx;
    // Key creation and every cryptographic operation go through the group commit.
    journal.registerTable({
      table: 'kms_key',
      columns: keyColumns,
      counter: 'operations',
      // In the key tally's order (migration 007): batches of two nodes lock its rows alike.
      order: (a, b) => (tallyOrder(a) < tallyOrder(b) ? -1 : tallyOrder(a) > tallyOrder(b) ? 1 : 0),
    });
    journal.registerTable({ table: 'kms_key_version', columns: keyVersionColumns });
    const material = createKeyMaterial({ keyring: ctx.keyring });
    const pool = createCryptoPool(ctx.config.cryptoWorkers);
    const keys = createKeyCache(db, clock);
    // The dashboard's operation counters, offered by a later module: looked up at the first count.
    let counter: ModuleServices['opCounter'] | undefined;
    const countOp = (domainId: string, opClass: OpClass) =>
      (counter ??= ctx.use('opCounter')).count(domainId, opClass);
    // The licence's key quota (modules/license), looked up at the first key made.
    let license: ModuleServices['license'] | undefined;
    const keyQuota = (adding: number) => (license ??= ctx.use('license')).checkQuota('keys', adding);
    const service = createKeyService({
      db,
      clock,
      audit: ctx.audit,
      material,
      pool,
      keys,
      journal,
      countOp,
      keyQuota,
      // Looked up at the first key made: the licence module registers after this one.
      claimKeys: () => ctx.maybeUse('license') !== undefined,
      keyUsers: () => {
        const policies = ctx.maybeUse('tdePolicies');
        return policies && ((q, domainId, ids) => policies.policiesUsingKeys(q, domainId, ids));
      },
    });
    ctx.provide('keyFigures', keyFigures);
    ctx.provide('keys', { ...service, addKmipTotals: (counts) => addKmipTotals(db, counts) });
    keyRoutes(ctx.app, ctx.gate, service);
    ctx.provide('keyVault', createKeyVault({ db, keys, material, service, clock, audit: ctx.audit }));
    ctx.provide('keyRotation', createKeyRotation({ db, service }));
    const crypto = createCryptoService({
      db,
      material,
      pool,
      keys,
      journal,
      operationRecords: ctx.config.operationRecords,
      countOp,
    });
    ctx.provide('crypto', crypto);
    cryptoRoutes(ctx.app, ctx.gate, crypto);
    ctx.onClose(async () => {
      keys.close();
      await pool.close();
    });
  },
};
