import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Code, type api, type Input, type QueryInput, type tokenUsages } from '@ksp/contracts';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, type Db, type Executor } from '../../platform/db/database.js';
import type { RegistrationTokenTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';

/** Which kind of client a token registers (the contract's list). */
type Usage = (typeof tokenUsages)[number];

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/**
 * Registration tokens let agents enrol into a domain. The secret is shown once and
 * stored as SHA-256 (it is 256 random bits, so a fast hash is enough). `redeem` is
 * what client enrolment calls: it refuses expired and exhausted tokens and counts uses
 * atomically.
 */
export function createRegistrationTokenService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

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
    const row = await db
      .selectFrom('registration_token')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .executeTakeFirst();
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
    let q = trx
      .selectFrom('registration_token')
      .select('id')
      .where('domain_id', '=', domainId)
      .where('name', '=', name);
    if (except) q = q.where('id', '!=', except);
    if (await q.executeTakeFirst()) throw conflict('token.nameTaken', { name });
  }

  const newSecret = () => `ksprt_${randomBytes(32).toString('base64url')}`;

  return {
    async list(actor: Actor, query: QueryInput<typeof api.registrationToken.list>) {
      let q = db.selectFrom('registration_token').where('domain_id', '=', actor.domainId);
      if (query.name) q = q.where('name', 'like', `%${escapeLike(query.name)}%`);
      if (query.usage) q = q.where('usage', '=', query.usage);
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await q
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map(view), total: Number(total?.n ?? 0) };
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
        await trx.insertInto('registration_token').values(row).execute();
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'token.create',
          target: row.name,
          result: 'success',
          ip: meta.ip,
        });
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
        await trx.updateTable('registration_token').set(changes).where('id', '=', row.id).execute();
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'token.update',
          target: body.name ?? row.name,
          result: 'success',
          ip: meta.ip,
        });
      });
      return view(await find(actor, row.id));
    },

    async renew(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(actor, id);
      const secret = newSecret();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('registration_token')
          .set({ secret_hash: hashSecret(secret), updated_at: clock().toISOString() })
          .where('id', '=', row.id)
          .execute();
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'token.renew',
          target: row.name,
          result: 'success',
          ip: meta.ip,
        });
      });
      return { ...view(await find(actor, row.id)), secret };
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: RegistrationTokenTable[] = [];
      for (const id of ids) rows.push(await find(actor, id));
      return db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('registration_token').where('id', 'in', ids).executeTakeFirst();
        for (const r of rows)
          await writeAudit(trx, {
            who: subjectOf(actor),
            action: 'token.delete',
            target: r.name,
            result: 'success',
            ip: meta.ip,
          });
        return { deleted: Number(result.numDeletedRows) };
      });
    },

    /**
     * The token a secret names, refused as `redeem` refuses it (unknown, expired, exhausted),
     * without spending a use: for work to prepare before `redeem` spends it in a transaction.
     */
    async lookup(secret: string) {
      const row = await db
        .selectFrom('registration_token')
        .selectAll()
        .where('secret_hash', '=', hashSecret(secret))
        .executeTakeFirst();
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
      const row = await trx
        .selectFrom('registration_token')
        .selectAll()
        .where('secret_hash', '=', hashSecret(secret))
        .executeTakeFirst();
      if (!row || (usage !== 'any' && row.usage !== usage))
        throw new KspError(Code.BAD_CREDENTIALS, 'token.unknown');
      const state = status(row, clock().getTime());
      if (state === 'expired') throw new KspError(Code.STATE_FORBIDS, 'token.expired', { name: row.name });
      const result = await trx
        .updateTable('registration_token')
        .set((eb) => ({ used: eb('used', '+', 1) }))
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('capacity', '=', 0), eb('used', '<', eb.ref('capacity'))]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0)
        throw new KspError(Code.STATE_FORBIDS, 'token.exhausted', { name: row.name });
      const after = await trx
        .selectFrom('registration_token')
        .select('used')
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      return {
        domainId: row.domain_id,
        certValidityDays: row.cert_validity_days,
        tokenId: row.id,
        name: row.name,
        remaining: row.capacity === 0 ? null : Math.max(0, row.capacity - after.used),
      };
    },
  };
}

export type RegistrationTokenService = ReturnType<typeof createRegistrationTokenService>;
