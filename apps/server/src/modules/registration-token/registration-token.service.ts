import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Code, type api, type Input, type QueryInput, type tokenUsages } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { RegistrationTokenTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import {
  deleteTokens,
  findToken,
  findTokenBySecretHash,
  insertToken,
  listTokens,
  spendTokenUse,
  tokenNameTaken,
  tokenUses,
  updateToken,
} from './registration-token.store.js';

/** Which kind of client a token registers (the contract's list). */
type Usage = (typeof tokenUsages)[number];

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/**
 * Registration tokens let agents enrol into a domain. The secret is shown once and
 * stored as SHA-256 (it is 256 random bits, so a fast hash is enough). `redeem` is
 * what client enrolment calls: it refuses expired and exhausted tokens and counts uses
 * atomically.
 */
export function createRegistrationTokenService(deps: { db: Db; clock: Clock; audit: AuditWriter }) {
  const { db, clock, audit } = deps;

  function status(row: RegistrationTokenTable, now: number): 'valid' | 'expired' | 'exhausted' {
    if (row.expires_at !== '-' && Date.parse(row.expires_at) <= now) return 'expired';
    if (row.capacity > 0 && row.used >= row.capacity) return 'exhausted';
    return 'valid';
  }

  function view(row: RegistrationTokenTable) {
    return {
      id: row.id,
      name: row.name,
      usage: row.usage as Usage,
      expires_at: row.expires_at,
      cert_validity_days: row.cert_validity_days,
      capacity: row.capacity,
      used: row.used,
      remaining: row.capacity === 0 ? null : Math.max(0, row.capacity - row.used),
      status: status(row, clock().getTime()),
      created_at: row.created_at,
    };
  }

  async function find(actor: Actor, id: string) {
    const row = await findToken(db, actor.domainId, id);
    if (!row) throw notFound('token.notFound', { id });
    return row;
  }

  function checkExpiry(expires: string): string {
    if (expires === '-') return expires;
    const at = Date.parse(expires);
    if (at <= clock().getTime()) throw invalid('token.expiryPast');
    return new Date(at).toISOString();
  }

  async function nameFree(trx: Executor, domainId: string, name: string, except?: string) {
    if (await tokenNameTaken(trx, domainId, name, except)) throw conflict('token.nameTaken', { name });
  }

  const newSecret = () => `ksprt_${randomBytes(32).toString('base64url')}`;

  return {
    async list(actor: Actor, query: QueryInput<typeof api.registrationToken.list>) {
      const { rows, total } = await listTokens(db, actor.domainId, query, query);
      return { data: rows.map(view), total };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.registrationToken.create>) {
      const expires = checkExpiry(body.expires_at);
      await nameFree(db, actor.domainId, body.name);
      const secret = newSecret();
      const now = clock().toISOString();
      const row: RegistrationTokenTable = {
        id: randomUUID(),
        domain_id: actor.domainId,
        name: body.name,
        usage: body.usage,
        secret_hash: hashSecret(secret),
        expires_at: expires,
        cert_validity_days: body.cert_validity_days,
        capacity: body.capacity,
        used: 0,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertToken(trx, row);
        await audit.byCaller(trx, actor, meta, { action: 'token.create', target: row.name });
      });
      return { ...view(row), secret };
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.registrationToken.update>) {
      const row = await find(actor, body.id);
      if (body.name && body.name !== row.name) await nameFree(db, actor.domainId, body.name, row.id);
      const changes: Partial<RegistrationTokenTable> = {
        ...(body.name ? { name: body.name } : {}),
        ...(body.usage ? { usage: body.usage } : {}),
        ...(body.expires_at !== undefined ? { expires_at: checkExpiry(body.expires_at) } : {}),
        ...(body.cert_validity_days !== undefined ? { cert_validity_days: body.cert_validity_days } : {}),
        ...(body.capacity !== undefined ? { capacity: body.capacity } : {}),
        updated_at: clock().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await updateToken(trx, row.id, changes);
        await audit.byCaller(trx, actor, meta, { action: 'token.update', target: body.name ?? row.name });
      });
      return view(await find(actor, row.id));
    },

    async renew(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(actor, id);
      const secret = newSecret();
      await db.transaction().execute(async (trx) => {
        await updateToken(trx, row.id, {
          secret_hash: hashSecret(secret),
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, { action: 'token.renew', target: row.name });
      });
      return { ...view(await find(actor, row.id)), secret };
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: RegistrationTokenTable[] = [];
      for (const id of ids) rows.push(await find(actor, id));
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteTokens(trx, ids);
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, { action: 'token.delete', target: r.name });
        return { deleted };
      });
    },

    /**
     * The token a secret names, refused as `redeem` refuses it (unknown, expired, exhausted),
     * without spending a use: for work to prepare before `redeem` spends it in a transaction.
     */
    async lookup(secret: string) {
      const row = await findTokenBySecretHash(db, hashSecret(secret));
      if (!row) throw new KspError(Code.BAD_CREDENTIALS, 'token.unknown');
      const state = status(row, clock().getTime());
      if (state === 'expired') throw new KspError(Code.STATE_FORBIDS, 'token.expired', { name: row.name });
      if (state === 'exhausted')
        throw new KspError(Code.STATE_FORBIDS, 'token.exhausted', { name: row.name });
      return {
        domainId: row.domain_id,
        certValidityDays: row.cert_validity_days,
        tokenId: row.id,
        name: row.name,
      };
    },

    /**
     * Spends one use of a token for an enrolling client (or an online certificate request:
     * `usage` 'any'), inside the caller's transaction.
     * The conditional update makes concurrent enrolments unable to exceed the capacity.
     */
    async redeem(trx: Executor, secret: string, usage: Usage | 'any') {
      const row = await findTokenBySecretHash(trx, hashSecret(secret));
      if (!row || (usage !== 'any' && row.usage !== usage))
        throw new KspError(Code.BAD_CREDENTIALS, 'token.unknown');
      const state = status(row, clock().getTime());
      if (state === 'expired') throw new KspError(Code.STATE_FORBIDS, 'token.expired', { name: row.name });
      if (!(await spendTokenUse(trx, row.id)))
        throw new KspError(Code.STATE_FORBIDS, 'token.exhausted', { name: row.name });
      const used = await tokenUses(trx, row.id);
      return {
        domainId: row.domain_id,
        certValidityDays: row.cert_validity_days,
        tokenId: row.id,
        name: row.name,
        remaining: row.capacity === 0 ? null : Math.max(0, row.capacity - used),
      };
    },
  };
}

export type RegistrationTokenService = ReturnType<typeof createRegistrationTokenService>;
