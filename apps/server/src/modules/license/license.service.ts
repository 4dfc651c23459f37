import type { KeyObject } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import {
  ANY_LOCK_CODE,
  COMMUNITY_LIMITS,
  licenseFeatures,
  type FeatureUsage,
  type LicenseFeature,
  type LicenseOverview,
  type LicenseRow,
  type LicenseStatus,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import { turnLoader } from '../../platform/db/turn-loader.js';
import type { LicenseTable } from '../../platform/db/schema.js';
import type { KspError } from '../../platform/errors.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import {
  allLicenses,
  countClusterNodes,
  countKeysBesides,
  countLiveClients,
  countSshServers,
  deleteLicense,
  findLicense,
  insertLicense,
  installId,
  lockQuota,
} from './license.store.js';
import { lockCodeOf, readLicense } from './license.verify.js';

/** Key states that no longer count against the key quota. */
const GONE_STATES = ['destroyed', 'destroyed-compromised'];
/** Other nodes' activations reach this node's cached state within this time. */
const CACHE_MS = 30_000;

type Features = Partial<Record<LicenseFeature, number>>;

interface State {
  rows: LicenseTable[];
  at: number;
}

/**
 * Licences (docs/modules.md#licences). The activated licences are cached in memory (dropped on
 * activate and delete here, and after 30 s for other nodes' changes), so the quota check on
 * key creation costs one sum over the key tally, shared by the creations of one turn.
 */
export function createLicenseService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  trusted: readonly KeyObject[];
}) {
  const { db, clock, audit, trusted } = deps;
  let cached: State | null = null;
  let lockCode: string | null = null;

  /** `q`: inside a transaction, its own (SQLite has one connection). */
  async function rows(q: Executor = db): Promise<LicenseTable[]> {
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.rows;
    const all = await allLicenses(q);
    cached = { rows: all, at: Date.now() };
    return all;
  }

  async function lock(): Promise<string> {
    if (lockCode) return lockCode;
    lockCode = lockCodeOf(await installId(db));
    return lockCode;
  }

  const statusOf = (row: Pick<LicenseTable, 'not_before' | 'not_after'>, now: number): LicenseStatus =>
    now > Date.parse(row.not_after)
      ? 'expired'
      : now < Date.parse(row.not_before)
        ? 'not_yet_valid'
        : 'active';

  /** Parsed once per row read (every quota check sums them). */
  const parsedFeatures = new WeakMap<LicenseTable, Features>();
  const featuresOf = (row: LicenseTable): Features => {
    let features = parsedFeatures.get(row);
    if (!features) parsedFeatures.set(row, (features = JSON.parse(row.features) as Features));
    return features;
  };

  /** Totals per feature from the active licences, the community limits otherwise. */
  function totals(all: LicenseTable[], now: number) {
    const active = all.filter((r) => statusOf(r, now) === 'active');
    const expired = all.filter((r) => statusOf(r, now) === 'expired');
    const state: LicenseOverview['state'] =
      active.length > 0 ? 'licensed' : expired.length > 0 ? 'expired' : 'community';
    const figures = licenseFeatures.map((feature) => {
      const granting = active.filter((r) => featuresOf(r)[feature] !== undefined);
      const total = granting.length
        ? granting.reduce((sum, r) => sum + (featuresOf(r)[feature] ?? 0), 0)
        : COMMUNITY_LIMITS[feature];
      const expiredTotal = expired.reduce((sum, r) => sum + (featuresOf(r)[feature] ?? 0), 0);
      return {
        feature,
        total,
        expiredTotal,
        source: granting.length ? ('license' as const) : ('community' as const),
        not_before: granting.length ? granting.map((r) => r.not_before).sort()[0]! : null,
        not_after: granting.length
          ? granting
              .map((r) => r.not_after)
              .sort()
              .at(-1)!
          : null,
      };
    });
    return { state, figures };
  }

  /** Used quantity per feature, counted from real objects. */
  const clientTypeOf: Partial<Record<LicenseFeature, string>> = {
    tde_clients: 'tde',
    kadp_clients: 'kadp',
    rdm_clients: 'rdm',
  };

  async function used(feature: LicenseFeature, q: Executor = db): Promise<number> {
    const clientType = clientTypeOf[feature];
    // Enrolled clients of the type (modules/client); a deleted one no longer counts.
    if (clientType) return countLiveClients(q, clientType);
    // The SMS's managed servers of every domain (modules/ssh-server).
    if (feature === 'sms_servers') return countSshServers(q);
    if (feature !== 'keys') return 0; // KMIP clients do not exist yet
    return countKeysBesides(q, GONE_STATES);
  }

  /** The quota checks of one turn (key creations arrive together) share one count per feature. */
  const usedNow = turnLoader<LicenseFeature, number>((asked) => {
    const counts = new Map<LicenseFeature, Promise<number>>();
    for (const feature of asked) if (!counts.has(feature)) counts.set(feature, used(feature));
    return Promise.all(asked.map((feature) => counts.get(feature)!));
  });

  const toRow = (r: LicenseTable, now: number): LicenseRow => ({
    row_id: r.id,
    id: r.license_id,
    customer: r.customer,
    lock_code: r.lock_code,
    bind_type: r.bind_type as LicenseRow['bind_type'],
    features: featuresOf(r),
    not_before: r.not_before,
    not_after: r.not_after,
    issued_at: r.issued_at,
    status: statusOf(r, now),
    text: r.text,
    activated_at: r.activated_at,
    activated_by: r.activated_by,
  });

  const refuse = async (actor: Actor, meta: RequestMeta, err: KspError, details: Record<string, string>) => {
    await audit.byCaller(db, actor, meta, {
      action: 'license.activate',
      target: details.license_id ?? '',
      result: 'failure',
      details: { reason: err.messageKey, ...details },
    });
    return err;
  };

  /**
   * The exact check, inside the transaction that inserts the new objects: `asks` are the
   * quantities of `feature` its writers add, in order; the answer refuses (4220, as
   * `checkQuota`) those that no longer fit and grants the others (undefined). It first
   * updates the feature's row of `license_quota` (migration 034), so concurrent creations
   * on any node count one after another, each seeing what the others committed; the lock
   * is held until the caller's transaction ends.
   */
  async function claim(
    trx: Executor,
    feature: LicenseFeature,
    asks: readonly number[],
  ): Promise<(KspError | undefined)[]> {
    await lockQuota(trx, feature);
    const { state, figures } = totals(await rows(trx), clock().getTime());
    const figure = figures.find((f) => f.feature === feature)!;
    if (state === 'expired')
      return asks.map(() => stateForbids('license.expiredQuota', { feature, limit: figure.expiredTotal }));
    let room = figure.total - (await used(feature, trx));
    return asks.map((adding) => {
      if (adding > room) return stateForbids('license.quota', { feature, limit: figure.total });
      room -= adding;
      return undefined;
    });
  }

  return {
    claim,

    async lockdata() {
      const nodes = await countClusterNodes(db);
      return {
        lock_code: await lock(),
        bind_type: nodes > 1 ? ('cluster' as const) : ('instance' as const),
      };
    },

    async overview(): Promise<LicenseOverview> {
      const now = clock().getTime();
      const all = await rows();
      const { state, figures } = totals(all, now);
      const features: FeatureUsage[] = [];
      for (const f of figures) {
        features.push({
          feature: f.feature,
          total: f.total,
          used: await used(f.feature),
          source: f.source,
          not_before: f.not_before,
          not_after: f.not_after,
        });
      }
      return { lock_code: await lock(), state, features, licenses: all.map((r) => toRow(r, now)) };
    },

    /** The dashboard's figures: state, key usage and whole days until the last active licence ends. */
    async summary() {
      const now = clock().getTime();
      const all = await rows();
      const { state, figures } = totals(all, now);
      const keys = figures.find((f) => f.feature === 'keys')!;
      const ends = all.filter((r) => statusOf(r, now) === 'active').map((r) => Date.parse(r.not_after));
      return {
        state,
        keys_used: await used('keys'),
        keys_total: keys.total,
        days_left: ends.length ? Math.floor((Math.max(...ends) - now) / 86_400_000) : null,
      };
    },

    /**
     * Refuses a new object of `feature` over its quota (4220 naming the feature and the limit),
     * or any new object while every licence has expired. Existing objects are never refused.
     */
    async checkQuota(feature: LicenseFeature, adding: number): Promise<void> {
      const { state, figures } = totals(await rows(), clock().getTime());
      const figure = figures.find((f) => f.feature === feature)!;
      if (state === 'expired')
        throw stateForbids('license.expiredQuota', { feature, limit: figure.expiredTotal });
      if ((await usedNow.load(feature)) + adding > figure.total)
        throw stateForbids('license.quota', { feature, limit: figure.total });
    },

    /** `claim` for one creation: throws its refusal. */
    async claimOne(trx: Executor, feature: LicenseFeature, adding: number): Promise<void> {
      const [refusal] = await claim(trx, feature, [adding]);
      if (refusal) throw refusal;
    },

    async activate(actor: Actor, meta: RequestMeta, input: string): Promise<LicenseRow> {
      const verdict = readLicense(input, trusted);
      if (!verdict.ok) {
        throw await refuse(
          actor,
          meta,
          verdict.problem === 'malformed'
            ? invalid('license.malformed', { reason: verdict.reason })
            : invalid('license.badSignature'),
          verdict.problem === 'malformed'
            ? { problem: verdict.problem, detail: verdict.reason }
            : { problem: verdict.problem },
        );
      }
      const { payload, text } = verdict;
      const details = { license_id: payload.id, features: JSON.stringify(payload.features) };
      const here = await lock();
      if (payload.lock_code !== ANY_LOCK_CODE && payload.lock_code !== here)
        throw await refuse(
          actor,
          meta,
          invalid('license.wrongLockCode', { expected: payload.lock_code, actual: here }),
          details,
        );
      const now = clock();
      if (Date.parse(payload.not_after) < now.getTime())
        throw await refuse(actor, meta, invalid('license.expired', { date: payload.not_after }), details);
      const row: LicenseTable = {
        id: uuidv7(),
        license_id: payload.id,
        customer: payload.customer,
        lock_code: payload.lock_code,
        bind_type: payload.bind_type,
        features: JSON.stringify(payload.features),
        not_before: new Date(payload.not_before).toISOString(),
        not_after: new Date(payload.not_after).toISOString(),
        issued_at: new Date(payload.issued_at).toISOString(),
        text,
        activated_at: now.toISOString(),
        activated_by: actor.username,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await insertLicense(trx, row);
          await audit.byCaller(trx, actor, meta, { action: 'license.activate', target: payload.id, details });
        });
      } catch (err) {
        if (isUniqueViolation(err))
          throw await refuse(actor, meta, conflict('license.duplicate', { id: payload.id }), details);
        throw err;
      } finally {
        cached = null;
      }
      return toRow(row, now.getTime());
    },

    async remove(actor: Actor, meta: RequestMeta, rowId: string) {
      const row = await findLicense(db, rowId);
      if (!row) throw notFound('license.notFound', { id: rowId });
      try {
        await db.transaction().execute(async (trx) => {
          await deleteLicense(trx, rowId);
          await audit.byCaller(trx, actor, meta, {
            action: 'license.delete',
            target: row.license_id,
            details: { license_id: row.license_id, features: row.features },
          });
        });
      } finally {
        cached = null;
      }
      return { deleted: 1 };
    },
  };
}

export type LicenseService = ReturnType<typeof createLicenseService>;
