import { randomUUID } from 'node:crypto';
import { Code, type api, type CredentialType, type Input, type QueryInput } from '@ksp/contracts';
import type { AuditWriter, CallerRecord } from '../../platform/audit.js';
import { clientHash, verifyPassword } from '../../platform/auth/password.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { CredentialTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { DomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  claimVersion,
  credentialSummary,
  deleteCredentials,
  findCredential,
  findCredentialByName,
  findSealedValue,
  insertCredential,
  insertVersion,
  linkServer,
  listCredentials,
  listVersions,
  updateCredential,
} from './credential.store.js';
import { checkValue, generatePassword, type PasswordPolicyInput } from './credential.value.js';
import { credentialView } from './credential.view.js';

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
  audit: AuditWriter;
  sealer: DomainSealer;
  users: () => ModuleServices['users'];
  userRecords: () => ModuleServices['userRecords'];
  servers: () => ModuleServices['servers'];
}) {
  const { db, clock, audit, sealer } = deps;

  const view = (row: CredentialTable) => credentialView(row, clock().getTime());

  async function find(db: Executor, actor: Actor, id: string): Promise<CredentialTable> {
    const row = await findCredential(db, actor.domainId, id);
    if (!row) throw notFound('credential.notFound', { id });
    return row;
  }

  /** Who a credential or version was made by: a KMIP client says so, as a key it makes does (docs/kmip.md#audit). */
  const author = (actor: Actor) => (actor.kind === 'kmip' ? `KMIP ${actor.username}` : actor.username);

  const normalTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()))].sort();
  const isoOrNull = (at: string | null) => (at === null ? null : new Date(at).toISOString());

  /** The record of `action` on a credential: named by its name, kept under its id. */
  const about = (
    action: string,
    row: { id: string | null; name: string },
    details: Record<string, string | number>,
    result: 'success' | 'failure' = 'success',
  ): CallerRecord => ({ action, target: row.name, objectId: row.id, result, details });

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
        await audit.byCaller(
          db,
          actor,
          meta,
          about(action, row, { reason: err.messageKey, server_id: serverId }, 'failure'),
        );
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
      await insertVersion(trx, {
        credential_id: id,
        version,
        value_sealed: sealed,
        created_by: author(actor),
        created_at: at,
      });
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
    const stored = await findSealedValue(db, row.id, wanted);
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

  /** Stores `value` as version `from + 1` if `from` is still current (4090 otherwise), audited. */
  async function commitNextVersion(
    actor: Actor,
    meta: RequestMeta,
    row: CredentialTable,
    from: number,
    value: string,
    details: Record<string, string | number> = {},
  ): Promise<number> {
    const next = from + 1;
    const now = clock().toISOString();
    await db.transaction().execute(async (trx) => {
      if (!(await claimVersion(trx, row.id, from, next, now)))
        throw conflict('credential.changed', { name: row.name });
      await sealVersion(trx, actor, row.id, next, value, now);
      await audit.byCaller(
        trx,
        actor,
        meta,
        about('credential.add-version', row, { version: next, ...details }),
      );
    });
    return next;
  }

  return {
    async list(actor: Actor, query: QueryInput<typeof api.credential.list>) {
      const { rows, total } = await listCredentials(db, actor.domainId, query, query);
      return { data: rows.map(view), total };
    },

    async detail(actor: Actor, id: string) {
      const row = await find(db, actor, id);
      const versions = await listVersions(db, row.id);
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
        created_by: author(actor),
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await insertCredential(trx, row);
          await sealVersion(trx, actor, row.id, 1, body.value, now);
          await audit.byCaller(
            trx,
            actor,
            meta,
            about('credential.create', row, { type: row.type, version: 1 }),
          );
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
          await updateCredential(trx, row.id, changes);
          await audit.byCaller(
            trx,
            actor,
            meta,
            about(
              'credential.update',
              { id: row.id, name: changes.name ?? row.name },
              {
                fields: Object.keys(changes)
                  .filter((k) => k !== 'updated_at')
                  .join(','),
              },
            ),
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
      // The conditional update claims the next number: two new versions at once cannot both take it.
      await commitNextVersion(actor, meta, row, row.current_version, value);
      return view(await find(db, actor, row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: CredentialTable[] = [];
      for (const id of new Set(ids)) rows.push(await find(db, actor, id));
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteCredentials(
          trx,
          rows.map((r) => r.id),
        );
        for (const r of rows)
          await audit.byCaller(
            trx,
            actor,
            meta,
            about('credential.delete', r, { versions: r.current_version }),
          );
        return { deleted };
      });
    },

    generatePassword: (policy: PasswordPolicyInput) => ({ password: generatePassword(policy) }),

    /** For other modules (servers): a credential of the actor's domain, metadata only, or null. */
    async describe(actor: Actor, id: string) {
      const row = await credentialSummary(db, actor.domainId, id);
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
      return commitNextVersion(actor, meta, await find(db, actor, id), fromVersion, value, details);
    },

    /** For other modules: links a credential to a server (or unlinks it), as `server_id`. */
    async link(actor: Actor, id: string, serverId: string | null): Promise<void> {
      await linkServer(db, actor.domainId, id, serverId);
    },

    /**
     * A console user's reveal: their password is checked as update-my-password checks it; a
     * wrong one is refused, audited and counted towards the sign-in lockout.
     */
    async reveal(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.reveal>) {
      const row = await find(db, actor, body.id);
      const user = await deps.userRecords().findUserById(db, actor.userId);
      const refuse = async (reason: string, err: KspError) => {
        await audit.byCaller(
          db,
          actor,
          meta,
          about(
            'credential.reveal',
            row,
            { reason, ...(body.version ? { version: body.version } : {}) },
            'failure',
          ),
        );
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
      await audit.byCaller(db, actor, meta, about('credential.reveal', row, { version: opened.version }));
      return { id: row.id, name: row.name, type: row.type as CredentialType, ...opened };
    },

    /** An application's read, with its app token (by id or by name). */
    async readValue(actor: Actor, meta: RequestMeta, body: Input<typeof api.credential.value>) {
      const row =
        body.id !== undefined
          ? await findCredential(db, actor.domainId, body.id)
          : await findCredentialByName(db, actor.domainId, body.name ?? '');
      if (!row) throw notFound('credential.notFound', { id: body.id ?? body.name ?? '' });
      const opened = await openVersion(row, body.version).catch(async (err: unknown) => {
        if (err instanceof KspError && err.messageKey === 'credential.unreadable')
          await audit.byCaller(
            db,
            actor,
            meta,
            about('credential.read-value', row, { reason: 'sealed value does not open' }, 'failure'),
          );
        throw err;
      });
      await audit.byCaller(db, actor, meta, about('credential.read-value', row, { version: opened.version }));
      return { id: row.id, name: row.name, type: row.type as CredentialType, ...opened };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
