import { randomUUID } from 'node:crypto';
import {
  Code,
  type api,
  type CredentialRow,
  type CredentialType,
  type Input,
  type QueryInput,
} from '@ksp/contracts';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import { clientHash, verifyPassword } from '../../platform/auth/password.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { CredentialTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { DomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { ModuleServices } from '../../platform/module.js';
import { checkValue, generatePassword, type PasswordPolicyInput } from './credential.value.js';

/** The additional data a version's sealed value is bound to: moved to another row, it fails to open. */
const aad = (id: string, version: number) => `ksp/credential/${id}/${version}`;

/**
 * Credentials (docs/modules.md#credentials). Values are sealed under the domain's KEK on the way in and
 * opened only by `reveal` (a console user who typed their password again) and `readValue`
 * (an application token); both write an audit record naming who read which version.
 * Every query is limited to the caller's domain: another domain's credential is "not found".
 */
export function createCredentialService(deps: {
  db: Db;
  clock: Clock;
  sealer: DomainSealer;
  users: () => ModuleServices['users'];
  userRecords: () => ModuleServices['userRecords'];
  servers: () => ModuleServices['servers'];
}) {
  const { db, clock, sealer } = deps;

  const view = (row: CredentialTable): CredentialRow => ({
    id: row.id,
    name: row.name,
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    type: row.type as CredentialType,
    server_id: row.server_id,
    expires_at: row.expires_at,
    expired: row.expires_at !== null && Date.parse(row.expires_at) <= clock().getTime(),
    rotation_days: row.rotation_days,
    current_version: row.current_version,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });

  async function find(db: Executor, actor: Actor, id: string): Promise<CredentialTable> {
    const row = await db
      .selectFrom('credential')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .executeTakeFirst();
    if (!row) throw notFound('credential.notFound', { id });
    return row;
  }

  const normalTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()))].sort();
  const isoOrNull = (at: string | null) => (at === null ? null : new Date(at).toISOString());

  const audit = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    row: { id: string | null; name: string },
    result: 'success' | 'failure' = 'success',
    details?: Record<string, string | number>,
  ) =>
    writeAudit(
      trx,
      {
        who: subjectOf(actor),
        action,
        target: row.name,
        result,
        ip: meta.ip,
        objectId: row.id,
        ...(details ? { details } : {}),
      },
      clock(),
    );

  /**
   * A server id the caller gives must name a server of the caller's domain: another domain's
   * (or an unknown) id answers 4040 `server.notFound`, and the refusal is audited.
   */
  async function assertServer(
    actor: Actor,
    meta: RequestMeta,
    serverId: string | null | undefined,
    row: { id: string | null; name: string },
    action: string,
  ): Promise<void> {
    if (serverId === undefined || serverId === null) return;
    try {
      await deps.servers().visible(actor, serverId);
    } catch (err) {
      if (err instanceof KspError)
        await audit(db, actor, meta, action, row, 'failure', { reason: err.messageKey, server_id: serverId });
      throw err;
    }
  }

  async function sealVersion(
    trx: Executor,
    actor: Actor,
    id: string,
    version: number,
    value: string,
    at: string,
  ): Promise<void> {
    const plain = Buffer.from(value, 'utf8');
    try {
      const sealed = await sealer.seal(trx, actor.domainId, aad(id, version), plain);
      await trx
        .insertInto('credential_version')
        .values({
          credential_id: id,
          version,
          value_sealed: sealed,
          created_by: actor.username,
          created_at: at,
        })
        .execute();
    } finally {
      plain.fill(0);
    }
  }

  /** The plaintext of one version (the current one by default). */
  async function openVersion(
    row: CredentialTable,
    version: number | undefined,
  ): Promise<{ version: number; value: string }> {
    const wanted = version ?? row.current_version;
    const stored = await db
      .selectFrom('credential_version')
      .select('value_sealed')
      .where('credential_id', '=', row.id)
      .where('version', '=', wanted)
      .executeTakeFirst();
    if (!stored) throw notFound('credential.versionNotFound', { name: row.name, version: wanted });
    let plain: Buffer;
    try {
      plain = await sealer.open(db, row.domain_id, aad(row.id, wanted), stored.value_sealed);
    } catch {
      // Altered, or moved from another credential, version or domain: GCM refuses it.
      throw stateForbids('credential.unreadable', { name: row.name, version: wanted });
    }
    const value = plain.toString('utf8');
    plain.fill(0);
    return { version: wanted, value };
  }

  return {
    async list(actor: Actor, query: QueryInput<typeof api.credential.list>) {
      let q = db.selectFrom('credential').where('domain_id', '=', actor.domainId);
      if (query.name) q = q.where('name', 'like', `%${escapeLike(query.name)}%`);
      if (query.type) q = q.where('type', '=', query.type);
      if (query.tag) q = q.where('tags', 'like', `%${escapeLike(JSON.stringify(query.tag))}%`);
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await q
        .selectAll()
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map(view), total: Number(total?.n ?? 0) };
    },

    async detail(actor: Actor, id: string) {
      const row = await find(db, actor, id);
      const versions = await db
        .selectFrom('credential_version')
        .select(['version', 'created_by', 'created_at'])
        .where('credential_id', '=', row.id)
        .orderBy('version', 'desc')
        .execute();
      return {
        ...view(row),
        versions: versions.map((v) => ({ ...v, current: v.version === row.current_version })),
      };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.create>) {
      checkValue(body.type, body.value);
      await assertServer(actor, meta, body.server_id, { id: null, name: body.name }, 'credential.create');
      const now = clock().toISOString();
      const row: CredentialTable = {
        id: randomUUID(),
        domain_id: actor.domainId,
        name: body.name,
        description: body.description,
        tags: JSON.stringify(normalTags(body.tags)),
        type: body.type,
        server_id: body.server_id,
        expires_at: isoOrNull(body.expires_at),
        rotation_days: body.rotation_days,
        current_version: 1,
        created_by: actor.username,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('credential').values(row).execute();
          await sealVersion(trx, actor, row.id, 1, body.value, now);
          await audit(trx, actor, meta, 'credential.create', row, 'success', { type: row.type, version: 1 });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('credential.nameTaken', { name: body.name });
        throw err;
      }
      return view(row);
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.update>) {
      const row = await find(db, actor, body.id);
      // Only a change is checked: a link the servers module made stays as it is.
      if (body.server_id !== row.server_id)
        await assertServer(actor, meta, body.server_id, row, 'credential.update');
      const changes: Partial<CredentialTable> = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.tags !== undefined ? { tags: JSON.stringify(normalTags(body.tags)) } : {}),
        ...(body.server_id !== undefined ? { server_id: body.server_id } : {}),
        ...(body.expires_at !== undefined ? { expires_at: isoOrNull(body.expires_at) } : {}),
        ...(body.rotation_days !== undefined ? { rotation_days: body.rotation_days } : {}),
        updated_at: clock().toISOString(),
      };
      try {
        await db.transaction().execute(async (trx) => {
          await trx.updateTable('credential').set(changes).where('id', '=', row.id).execute();
          await audit(
            trx,
            actor,
            meta,
            'credential.update',
            { id: row.id, name: changes.name ?? row.name },
            'success',
            {
              fields: Object.keys(changes)
                .filter((k) => k !== 'updated_at')
                .join(','),
            },
          );
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('credential.nameTaken', { name: body.name ?? row.name });
        throw err;
      }
      return view(await find(db, actor, row.id));
    },

    async addVersion(actor: Actor, meta: RequestMeta, id: string, value: string) {
      const row = await find(db, actor, id);
      checkValue(row.type as CredentialType, value);
      const now = clock().toISOString();
      await db.transaction().execute(async (trx) => {
        // The conditional update claims the next number: two new versions at once cannot both take it.
        const next = row.current_version + 1;
        const claimed = await trx
          .updateTable('credential')
          .set({ current_version: next, updated_at: now })
          .where('id', '=', row.id)
          .where('current_version', '=', row.current_version)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) throw conflict('credential.changed', { name: row.name });
        await sealVersion(trx, actor, row.id, next, value, now);
        await audit(trx, actor, meta, 'credential.add-version', row, 'success', { version: next });
      });
      return view(await find(db, actor, row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CredentialTable[] = [];
      for (const id of new Set(ids)) rows.push(await find(db, actor, id));
      return db.transaction().execute(async (trx) => {
        const list = rows.map((r) => r.id);
        await trx.deleteFrom('credential_version').where('credential_id', 'in', list).execute();
        const result = await trx.deleteFrom('credential').where('id', 'in', list).executeTakeFirst();
        for (const r of rows)
          await audit(trx, actor, meta, 'credential.delete', r, 'success', { versions: r.current_version });
        return { deleted: Number(result.numDeletedRows) };
      });
    },

    generatePassword: (policy: PasswordPolicyInput) => ({ password: generatePassword(policy) }),

    /** For other modules (servers): a credential of the actor's domain, metadata only, or null. */
    async describe(actor: Actor, id: string) {
      const row = await db
        .selectFrom('credential')
        .select(['id', 'name', 'type', 'current_version'])
        .where('id', '=', id)
        .where('domain_id', '=', actor.domainId)
        .executeTakeFirst();
      return row ? { ...row, type: row.type as CredentialType } : null;
    },

    /** For other modules (servers logging in): the current value, not audited here (the caller audits its use). */
    async openCurrent(actor: Actor, id: string) {
      return openVersion(await find(db, actor, id), undefined);
    },

    /**
     * For other modules (a password rotation): stores `value` as the next version if `fromVersion`
     * is still the current one (4090 `credential.changed` otherwise); audited as an add-version
     * with the caller's details.
     */
    async addRotatedVersion(
      actor: Actor,
      meta: RequestMeta,
      id: string,
      fromVersion: number,
      value: string,
      details: Record<string, string | number>,
    ): Promise<number> {
      const row = await find(db, actor, id);
      const next = fromVersion + 1;
      const now = clock().toISOString();
      await db.transaction().execute(async (trx) => {
        const claimed = await trx
          .updateTable('credential')
          .set({ current_version: next, updated_at: now })
          .where('id', '=', row.id)
          .where('current_version', '=', fromVersion)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) throw conflict('credential.changed', { name: row.name });
        await sealVersion(trx, actor, row.id, next, value, now);
        await audit(trx, actor, meta, 'credential.add-version', row, 'success', {
          version: next,
          ...details,
        });
      });
      return next;
    },

    /** For other modules: links a credential to a server (or unlinks it), as `server_id`. */
    async link(actor: Actor, id: string, serverId: string | null): Promise<void> {
      await db
        .updateTable('credential')
        .set({ server_id: serverId })
        .where('id', '=', id)
        .where('domain_id', '=', actor.domainId)
        .execute();
    },

    /**
     * A console user's reveal: their password is checked as update-my-password checks it; a
     * wrong one is refused, audited and counted towards the sign-in lockout.
     */
    async reveal(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.reveal>) {
      const row = await find(db, actor, body.id);
      const user = await deps.userRecords().findUserById(db, actor.userId);
      const refuse = async (reason: string, err: KspError) => {
        await audit(db, actor, meta, 'credential.reveal', row, 'failure', {
          reason,
          ...(body.version ? { version: body.version } : {}),
        });
        return err;
      };
      if (!user) throw notFound('credential.notFound', { id: body.id });
      if (user.directory) throw await refuse('directory user', stateForbids('credential.directoryUser'));
      const now = clock();
      const locked = () =>
        new KspError(Code.ACCOUNT_LOCKED, 'auth.accountLocked', { until: user.locked_until ?? '' });
      if (user.locked_until && Date.parse(user.locked_until) > now.getTime())
        throw await refuse('account locked', locked());
      if (!(await verifyPassword(clientHash(body.password), user.password_hash))) {
        const counted = await deps.users().countFailure(user.id, now);
        if (!counted) throw await refuse('account locked', locked());
        throw await refuse(
          counted.lockedUntil ? 'wrong password, account locked' : 'wrong password',
          invalid('credential.wrongPassword'),
        );
      }
      const opened = await openVersion(row, body.version).catch(async (err: unknown) => {
        throw err instanceof KspError && err.messageKey === 'credential.unreadable'
          ? await refuse('sealed value does not open', err)
          : err;
      });
      await audit(db, actor, meta, 'credential.reveal', row, 'success', { version: opened.version });
      return { id: row.id, name: row.name, type: row.type as CredentialType, ...opened };
    },

    /** An application's read, with its app token (by id or by name). */
    async readValue(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.value>) {
      let q = db.selectFrom('credential').selectAll().where('domain_id', '=', actor.domainId);
      q = body.id !== undefined ? q.where('id', '=', body.id) : q.where('name', '=', body.name ?? '');
      const row = await q.executeTakeFirst();
      if (!row) throw notFound('credential.notFound', { id: body.id ?? body.name ?? '' });
      const opened = await openVersion(row, body.version).catch(async (err: unknown) => {
        if (err instanceof KspError && err.messageKey === 'credential.unreadable')
          await audit(db, actor, meta, 'credential.read-value', row, 'failure', {
            reason: 'sealed value does not open',
          });
        throw err;
      });
      await audit(db, actor, meta, 'credential.read-value', row, 'success', { version: opened.version });
      return { id: row.id, name: row.name, type: row.type as CredentialType, ...opened };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
