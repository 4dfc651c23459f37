import { bumpClientConfig } from '../../platform/agent-config.js';
import { v7 as uuidv7 } from 'uuid';
import { nonceBytes } from '../../platform/crypto/random.js';
import {
  algorithmInfo,
  type api,
  isPairedPublic,
  isStandalonePublic,
  keyStates,
  liveKeyStates,
  keyStateAllows,
  nextKeyState,
  stateLabel,
  usageBit,
  validateUsage,
  type AlgorithmId,
  type KeyState,
  type OpClass,
  type UsageWord,
} from '@ksp/contracts';
import { auditRow, callerEntry, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { generateKeyAsync } from '../../platform/crypto/generate.js';
import { isHeavy, type CryptoPool } from '../../platform/crypto/worker-pool.js';
import { isCipherAlgorithm, keyCheckValue } from '../../platform/crypto/symmetric.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { Journal } from '../../platform/db/journal.js';
import type { Transaction } from 'kysely';
import type { z } from 'zod';
import type { KeyCache } from './key.cache.js';
import type { Database, KeyTable, KeyVersionTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { createKeyExport } from './key.export.js';
import { checkPublicUsage, importedKey } from './key.import.js';
import { fingerprintOf, type KeyMaterial } from './key.material.js';
import { toKeyRow, type Cte } from './key.row.js';
import { holdersOf, type CertificateKeys } from './key.holders.store.js';
import {
  deleteKeys,
  findKey,
  findKeyByName,
  findVersion,
  insertKeyVersion,
  listKeyAudit,
  listKeys,
  listVersions,
  nameLookup,
  updateKey,
  wipeMaterial,
} from './key.store.js';

/** What a new key is made of: the contract's create body (import and clone give the same). */
type NewKeyFields = z.output<NonNullable<typeof api.key.create.body>>;
type ImportBody = z.output<NonNullable<typeof api.key.import.body>>;

/**
 * A new key's material: the secret (symmetric or private key) and, for a pair, its public key.
 * A public key without material is a public key imported alone: one row, no private half.
 */
interface NewMaterial {
  material?: Buffer | undefined;
  publicKey?: Buffer | undefined;
}

/**
 * Key lifecycle (docs/modules.md#key-states): states are KMIP's, shown as the console's labels; a key pair
 * is two linked objects that change state together. Every change writes its audit record
 * in the same transaction.
 */
export function createKeyService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  material: KeyMaterial;
  pool: CryptoPool;
  keys: KeyCache;
  journal: Journal;
  /** Counts a key made (create, import, clone, new version) for the dashboard's operations. */
  countOp: (domainId: string, opClass: OpClass) => void;
  /**
   * Refuses `adding` more key objects over the licence's quota (4220); existing keys are never
   * refused. A quick look before the work of making a key: the exact check is the journal's
   * `keys` claim, made in the transaction that inserts them (set `claimKeys` with this).
   */
  keyQuota?: (adding: number) => Promise<void>;
  /** Whether new keys claim the licence's `keys` quota in the group commit's transaction (modules/license). */
  claimKeys?: () => boolean;
  /** What still uses keys outside this module (TDE policies' key rules): such keys are not deleted. */
  keyUsers?: () =>
    | ((q: Executor, domainId: string, keyIds: string[]) => Promise<{ keyId: string; policy: string }[]>)
    | undefined;
}) {
  const { db, clock, audit, material } = deps;
  /** Every change to keys goes through here, so the crypto API never uses a stale row. */
  const write = <T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
    db
      .transaction()
      .execute(fn)
      .finally(() => deps.keys.forget());
  const nameTaken = nameLookup(db);
  const generate = (alg: AlgorithmId) => (isHeavy(alg) ? deps.pool.generate(alg) : generateKeyAsync(alg));

  async function load(actor: Actor, id: string, trx: Executor = db) {
    const row = await findKey(trx, actor.domainId, id);
    if (!row) throw notFound('key.notFound', { id });
    return row;
  }

  async function view(row: KeyTable, trx: Executor = db) {
    return toKeyRow(row, await findVersion(trx, row.id, row.current_version));
  }

  async function reload(actor: Actor, id: string) {
    return view(await load(actor, id));
  }

  function checkUsage(algorithm: AlgorithmId, mask: number) {
    const check = validateUsage(algorithm, mask);
    if (!check.valid) throw invalid('key.badUsage', { reason: check.reason });
  }

  function checkCte(algorithm: AlgorithmId, cte: Cte | null | undefined) {
    if (cte && algorithmInfo(algorithm).family !== 'AES') throw invalid('key.cteAesOnly', { algorithm });
  }

  async function versionRow(
    trx: Executor,
    domainId: string,
    keyId: string,
    version: number,
    algorithm: AlgorithmId,
    generated: { material?: Buffer | undefined; publicKey?: Buffer | undefined },
  ): Promise<KeyVersionTable> {
    return {
      key_id: keyId,
      version,
      material_wrapped: generated.material
        ? await material.seal(trx, domainId, keyId, version, generated.material)
        : null,
      public_key: generated.publicKey ? generated.publicKey.toString('base64') : null,
      kcv:
        generated.material && isCipherAlgorithm(algorithm)
          ? keyCheckValue(algorithm, generated.material)
          : null,
      fingerprint: generated.publicKey ? fingerprintOf(generated.publicKey) : null,
      created_at: clock().toISOString(),
    };
  }

  /** Inserts a key (or a private/public pair) with version 1 of the given material. */
  async function insertNew(
    actor: Actor,
    meta: RequestMeta,
    fields: NewKeyFields,
    generated: NewMaterial,
    action: string,
    auditExtra: Record<string, string> = {},
  ) {
    const info = algorithmInfo(fields.algorithm);
    const now = clock().toISOString();
    // Time-ordered ids keep inserts at the end of the primary key's index.
    const id = uuidv7({ random: nonceBytes(16) });
    const publicAlone = info.kind === 'asymmetric' && !generated.material;
    const pair = info.kind === 'asymmetric' && !publicAlone;
    const publicId = pair ? uuidv7({ random: nonceBytes(16) }) : null;
    await deps.keyQuota?.(pair ? 2 : 1);
    const base = {
      domain_id: actor.domainId,
      algorithm: fields.algorithm,
      usage_mask: fields.usage_mask,
      state: fields.state,
      current_version: 1,
      owner_id: actor.userId || null,
      // A key a KMIP client made says so wherever its owner shows (docs/kmip.md#audit).
      owner_name: actor.kind === 'kmip' ? `KMIP ${actor.username}` : actor.username,
      exportable: fields.exportable ? 1 : 0,
      deletable: fields.deletable ? 1 : 0,
      description: fields.description,
      labels: JSON.stringify(fields.labels),
      cte: fields.cte ? JSON.stringify(fields.cte) : null,
      kmip_total: 0,
      operations: 0,
      activation_date: fields.state === 'active' ? now : (fields.activation_date ?? null),
      deactivation_date: fields.deactivation_date ?? null,
      revocation_reason: null,
      revocation_message: null,
      destroyed_at: null,
      created_at: now,
      updated_at: now,
    };
    const keyRow: KeyTable = {
      ...base,
      id,
      name: fields.name,
      object_type: pair ? 'private' : publicAlone ? 'public' : 'symmetric',
      linked_key_id: publicId,
    };
    const keys: KeyTable[] = [keyRow];
    const versions = [await versionRow(db, actor.domainId, id, 1, fields.algorithm, generated)];
    if (publicId) {
      keys.push({
        ...base,
        id: publicId,
        name: `${fields.name}.pub`,
        object_type: 'public',
        linked_key_id: id,
      });
      versions.push(
        await versionRow(db, actor.domainId, publicId, 1, fields.algorithm, {
          publicKey: generated.publicKey,
        }),
      );
    }
    const record = auditRow(
      callerEntry(actor, meta, {
        action,
        target: fields.name,
        objectId: id,
        details: {
          key_id: id,
          algorithm: fields.algorithm,
          ...(publicId ? { public_key_id: publicId } : {}),
          ...(publicAlone ? { object_type: 'public' } : {}),
          ...auditExtra,
        },
      }),
    );
    try {
      // Group commit: creations arriving together share one transaction.
      await deps.journal.write({
        rows: { kms_key: keys, kms_key_version: versions },
        audit: [record],
        ...(deps.claimKeys?.() ? { claim: { kind: 'keys', adding: keys.length } } : {}),
      });
      deps.countOp(actor.domainId, 'keygen');
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const taken = (await findKeyByName(db, actor.domainId, fields.name))
        ? fields.name
        : `${fields.name}.pub`;
      throw conflict('key.nameTaken', { name: taken });
    }
    return toKeyRow(keyRow, versions[0]);
  }

  /** Applies a state change to a key and its linked half, audited. */
  async function transition(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    action: string,
    decide: (row: KeyTable) => Partial<KeyTable>,
    extra: (trx: Executor, row: KeyTable) => Promise<void> = () => Promise.resolve(),
  ) {
    await write(async (trx) => {
      const row = await load(actor, id, trx);
      const changes = { ...decide(row), updated_at: clock().toISOString() };
      for (const target of [row.id, row.linked_key_id].filter((x): x is string => Boolean(x))) {
        await updateKey(trx, target, changes);
        await extra(trx, { ...row, id: target });
      }
      await audit.byCaller(trx, actor, meta, {
        action,
        target: row.name,
        objectId: row.id,
        details: { key_id: row.id, from: row.state, ...(changes.state ? { to: changes.state } : {}) },
      });
    });
    return reload(actor, id);
  }

  const exportKey = createKeyExport({ db, audit, material, load });

  const refuse = (row: KeyTable, action: string) =>
    stateForbids('key.badTransition', { name: row.name, action, state: stateLabel(row.state as KeyState) });

  return {
    view,
    load,

    async list(
      actor: Actor,
      query: {
        page: number;
        page_size: number;
        name?: string | undefined;
        name_prefix?: string | undefined;
        state?: string | undefined;
        algorithm?: string | undefined;
        type?: KeyTable['object_type'] | undefined;
        usage?: UsageWord | undefined;
        certificate_keys?: CertificateKeys | undefined;
      },
    ) {
      const states = query.state
        ? keyStates.filter((state) => stateLabel(state) === query.state)
        : [...liveKeyStates];
      const { rows, total, capped } = await listKeys(
        db,
        actor.domainId,
        {
          name: query.name,
          namePrefix: query.name_prefix,
          states,
          algorithm: query.algorithm,
          type: query.type,
          usageBits: query.usage ? usageBit(query.usage) : undefined,
          certificateKeys: query.certificate_keys,
        },
        (query.page - 1) * query.page_size,
        query.page_size,
      );
      // Each row carries its current version's kcv and fingerprint, and its holder (one query).
      const holders = await holdersOf(db, actor.domainId, rows);
      return {
        data: rows.map((r) => ({ ...toKeyRow(r, r), belongs_to: holders.get(r.id) ?? null })),
        total,
        total_capped: capped,
      };
    },

    detail: (actor: Actor, id: string) => reload(actor, id),

    async versions(actor: Actor, id: string) {
      const row = await load(actor, id);
      return (await listVersions(db, row.id)).map((v) => ({
        version: v.version,
        kcv: v.kcv,
        fingerprint: v.fingerprint,
        destroyed: v.material_wrapped === null && row.object_type !== 'public',
        created_at: v.created_at,
      }));
    },

    async audit(actor: Actor, query: { id: string; page: number; page_size: number }) {
      const row = await load(actor, query.id);
      // A key pair is managed as one: each half shows the records of both.
      const ids = row.linked_key_id ? [row.id, row.linked_key_id] : [row.id];
      return listKeyAudit(db, actor.domainId, ids, query);
    },

    async create(actor: Actor, meta: RequestMeta, body: NewKeyFields) {
      checkUsage(body.algorithm, body.usage_mask);
      checkCte(body.algorithm, body.cte);
      if (await nameTaken.load({ domainId: actor.domainId, name: body.name }))
        throw conflict('key.nameTaken', { name: body.name });
      const generated = await generate(body.algorithm);
      try {
        return await insertNew(actor, meta, body, generated, 'key.create');
      } finally {
        generated.material.fill(0);
      }
    },

    async import(actor: Actor, meta: RequestMeta, body: ImportBody) {
      checkUsage(body.algorithm, body.usage_mask);
      checkCte(body.algorithm, body.cte);
      const imported = await importedKey(
        body.algorithm,
        body.format,
        body.content,
        (format, bytes) => deps.pool.import(body.algorithm, format, bytes),
        body.public_key,
      );
      try {
        // A public key alone only verifies, encrypts, wraps or encapsulates.
        if (!imported.material) checkPublicUsage(body.usage_mask);
        if (await nameTaken.load({ domainId: actor.domainId, name: body.name }))
          throw conflict('key.nameTaken', { name: body.name });
        return await insertNew(actor, meta, body, imported, 'key.import', { format: imported.format });
      } finally {
        imported.material?.fill(0);
      }
    },

    async update(
      actor: Actor,
      meta: RequestMeta,
      body: {
        id: string;
        name?: string | undefined;
        description?: string | undefined;
        labels?: Record<string, string> | undefined;
        exportable?: boolean | undefined;
        deletable?: boolean | undefined;
        cte?: Cte | null | undefined;
      },
    ) {
      const row = await load(actor, body.id);
      if (body.exportable === false && row.exportable === 1)
        throw stateForbids('key.exportableSticky', { name: row.name });
      checkCte(row.algorithm as AlgorithmId, body.cte);
      if (body.name && body.name !== row.name && (await findKeyByName(db, actor.domainId, body.name))) {
        throw conflict('key.nameTaken', { name: body.name });
      }
      await write(async (trx) => {
        const now = clock().toISOString();
        await updateKey(trx, row.id, {
          ...(body.name ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.labels ? { labels: JSON.stringify(body.labels) } : {}),
          updated_at: now,
        });
        // Flags and TDE attributes belong to the key pair as a whole: both halves change.
        const shared = {
          ...(body.exportable ? { exportable: 1 } : {}),
          ...(body.deletable !== undefined ? { deletable: body.deletable ? 1 : 0 } : {}),
          ...(body.cte !== undefined ? { cte: body.cte ? JSON.stringify(body.cte) : null } : {}),
        };
        if (Object.keys(shared).length > 0) {
          for (const target of [row.id, row.linked_key_id].filter((x): x is string => Boolean(x))) {
            await updateKey(trx, target, { ...shared, updated_at: now });
          }
        }
        await audit.byCaller(trx, actor, meta, {
          action: 'key.update',
          target: body.name ?? row.name,
          objectId: row.id,
          details: { key_id: row.id },
        });
      });
      return reload(actor, row.id);
    },

    activate: (actor: Actor, meta: RequestMeta, id: string) =>
      transition(actor, meta, id, 'key.activate', (row) => {
        const state = nextKeyState('activate', row.state as KeyState);
        if (!state) throw refuse(row, 'activate');
        return { state, activation_date: clock().toISOString() };
      }),

    disable: (actor: Actor, meta: RequestMeta, body: { id: string; reason: string; message: string }) =>
      transition(actor, meta, body.id, 'key.disable', (row) => {
        const state = nextKeyState('disable', row.state as KeyState, body.reason);
        if (!state) throw refuse(row, 'disable');
        return {
          state,
          deactivation_date: clock().toISOString(),
          revocation_reason: body.reason,
          revocation_message: body.message,
        };
      }),

    recover: (actor: Actor, meta: RequestMeta, id: string) =>
      transition(actor, meta, id, 'key.recover', (row) => {
        if (row.state === 'compromised') throw stateForbids('key.compromisedFinal', { name: row.name });
        const state = nextKeyState('recover', row.state as KeyState);
        if (!state) throw refuse(row, 'recover');
        return {
          state,
          deactivation_date: null,
          revocation_reason: null,
          revocation_message: null,
        };
      }),

    /**
     * Makes new material current; older versions keep decrypting and verifying. `options.within`
     * runs in the rotation's own transaction, before the new version is written (the scheduler marks its progress there: if it
     * throws, nothing of the rotation is kept); `options.details` are added to the audit record.
     */
    async addVersion(
      actor: Actor,
      meta: RequestMeta,
      id: string,
      options: {
        within?: (trx: Executor, version: number) => Promise<void>;
        details?: Record<string, string | number>;
      } = {},
    ) {
      const row = await load(actor, id);
      if (isStandalonePublic(row))
        throw stateForbids('key.publicKeyAlone', { name: row.name, action: 'add a version' });
      if (!keyStateAllows('addVersion', row.state as KeyState)) throw refuse(row, 'add a version to');
      const privateRow =
        row.object_type === 'public' && row.linked_key_id ? await load(actor, row.linked_key_id) : row;
      const generated = await generate(row.algorithm as AlgorithmId);
      try {
        await write(async (trx) => {
          const current = await load(actor, privateRow.id, trx);
          // Checked again inside the transaction: a change since the first look wins.
          if (!keyStateAllows('addVersion', current.state as KeyState))
            throw refuse(current, 'add a version to');
          const next = current.current_version + 1;
          await options.within?.(trx, next);
          const now = clock().toISOString();
          await insertKeyVersion(
            trx,
            await versionRow(
              trx,
              actor.domainId,
              current.id,
              next,
              current.algorithm as AlgorithmId,
              generated,
            ),
          );
          await updateKey(trx, current.id, { current_version: next, updated_at: now });
          // TDE agents receive AES keys' current versions (platform/agent-config.ts): they catch up.
          if (current.algorithm.startsWith('AES')) await bumpClientConfig(trx, actor.domainId, clock());
          if (current.linked_key_id) {
            await insertKeyVersion(
              trx,
              await versionRow(
                trx,
                actor.domainId,
                current.linked_key_id,
                next,
                current.algorithm as AlgorithmId,
                { publicKey: generated.publicKey },
              ),
            );
            await updateKey(trx, current.linked_key_id, { current_version: next, updated_at: now });
          }
          await audit.byCaller(trx, actor, meta, {
            action: 'key.add-version',
            target: current.name,
            objectId: current.id,
            details: { ...options.details, key_id: current.id, version: next },
          });
        });
        deps.countOp(actor.domainId, 'keygen');
      } finally {
        generated.material.fill(0);
      }
      return reload(actor, id);
    },

    async clone(actor: Actor, meta: RequestMeta, body: { id: string; new_name: string }) {
      const source = await load(actor, body.id);
      if (isStandalonePublic(source))
        throw stateForbids('key.publicKeyAlone', { name: source.name, action: 'clone' });
      const privateRow =
        source.object_type === 'public' && source.linked_key_id
          ? await load(actor, source.linked_key_id)
          : source;
      const version = await findVersion(db, privateRow.id, privateRow.current_version);
      if (!keyStateAllows('clone', privateRow.state as KeyState) || !version?.material_wrapped)
        throw stateForbids('key.noMaterial', { name: privateRow.name });
      const bytes = await material.open(
        db,
        actor.domainId,
        privateRow.id,
        version.version,
        version.material_wrapped,
      );
      const algorithm = privateRow.algorithm as AlgorithmId;
      const publicVersion = privateRow.linked_key_id
        ? await findVersion(db, privateRow.linked_key_id, privateRow.current_version)
        : undefined;
      try {
        return await insertNew(
          actor,
          meta,
          {
            name: body.new_name,
            algorithm,
            usage_mask: privateRow.usage_mask,
            state: 'active',
            exportable: privateRow.exportable === 1,
            deletable: privateRow.deletable === 1,
            description: privateRow.description,
            labels: JSON.parse(privateRow.labels) as Record<string, string>,
            cte: privateRow.cte ? (JSON.parse(privateRow.cte) as Cte) : null,
          },
          {
            material: bytes,
            publicKey: publicVersion?.public_key
              ? Buffer.from(publicVersion.public_key, 'base64')
              : undefined,
          },
          'key.clone',
        );
      } finally {
        bytes.fill(0);
      }
    },

    export: exportKey,

    destroy: (actor: Actor, meta: RequestMeta, id: string) =>
      transition(
        actor,
        meta,
        id,
        'key.destroy',
        (row) => {
          if (row.state === 'active') throw stateForbids('key.destroyActive', { name: row.name });
          const state = nextKeyState('destroy', row.state as KeyState);
          if (!state) throw refuse(row, 'destroy');
          return {
            state,
            destroyed_at: clock().toISOString(),
          };
        },
        (trx, row) => wipeMaterial(trx, row.id),
      ),

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: KeyTable[] = [];
      for (const id of ids) {
        const row = await load(actor, id);
        if (row.deletable !== 1) throw stateForbids('key.notDeletable', { name: row.name });
        if (isPairedPublic(row) && !ids.includes(row.linked_key_id ?? '')) {
          throw conflict('key.publicOfPair', { name: row.name });
        }
        rows.push(row);
      }
      let inUse: { key: KeyTable; policy: string } | undefined;
      const deleting = write(async (trx) => {
        const all = [...new Set(rows.flatMap((r) => [r.id, ...(r.linked_key_id ? [r.linked_key_id] : [])]))];
        // Checked in the deleting transaction: a policy saved meanwhile is seen (SQLite) or
        // its own check of the key fails (the key is gone when it commits).
        const users = deps.keyUsers?.();
        const used = users ? await users(trx, actor.domainId, all) : [];
        if (used.length) {
          const key = rows.find((r) => r.id === used[0]!.keyId) ?? rows[0]!;
          inUse = { key, policy: used[0]!.policy };
          throw conflict('key.inUse', { name: key.name, policy: inUse.policy });
        }
        const deleted = await deleteKeys(trx, all);
        for (const r of rows) {
          await audit.byCaller(trx, actor, meta, {
            action: 'key.delete',
            target: r.name,
            objectId: r.id,
            details: { key_id: r.id },
          });
        }
        return { deleted };
      });
      try {
        return await deleting;
      } catch (err) {
        // The refusal is audited after the rolled-back transaction, in one of its own.
        if (inUse)
          await audit.byCaller(db, actor, meta, {
            action: 'key.delete',
            target: inUse.key.name,
            result: 'failure',
            objectId: inUse.key.id,
            details: { reason: 'key.inUse', policy: inUse.policy },
          });
        throw err;
      }
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
