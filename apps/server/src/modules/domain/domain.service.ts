import type { api, Input, QueryInput } from '@ksp/contracts';
import { randomUUID } from 'node:crypto';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { conflict, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import {
  ROOT_DOMAIN,
  countMembers,
  countObjects,
  deleteDomains,
  findDomainById,
  findDomainByName,
  insertDomain,
  listDomains,
  membersOf,
  updateDomain,
} from './domain.store.js';

/** Domains are tenant-like scopes; each has its own KEK wrapped by the root key. */
export function createDomainService(deps: { db: Db; keyring: Keyring; clock: Clock; audit: AuditWriter }) {
  const { db, keyring, clock, audit } = deps;
  async function view(id: string) {
    const row = await findDomainById(db, id);
    if (!row) throw notFound('domain.notFound', { domain: id });
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      parent_id: row.parent_id,
      users: await countMembers(db, row.id),
      created_at: row.created_at,
    };
  }

  return {
    /** Members of a domain: only the caller's current domain without system scope. */
    async users(actor: Actor, id: string) {
      if (!(await findDomainById(db, id)) || (!actor.systemScope && id !== actor.domainId))
        throw notFound('domain.notFound', { domain: id });
      return membersOf(db, id);
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.domain.update>) {
      const row = await findDomainById(db, body.id);
      if (!row) throw notFound('domain.notFound', { domain: body.id });
      if (body.name && body.name !== row.name) {
        if (row.name === ROOT_DOMAIN) throw stateForbids('domain.rootFixed');
        if (await findDomainByName(db, body.name)) throw conflict('domain.nameTaken', { domain: body.name });
      }
      await db.transaction().execute(async (trx) => {
        await updateDomain(trx, row.id, {
          ...(body.name ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
        });
        await audit.byCaller(trx, actor, meta, { action: 'domain.update', target: body.name ?? row.name });
      });
      return view(row.id);
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: { name: string }[] = [];
      for (const id of ids) {
        const row = await findDomainById(db, id);
        if (!row) throw notFound('domain.notFound', { domain: id });
        if (row.name === ROOT_DOMAIN) throw stateForbids('domain.rootFixed');
        const members = await countMembers(db, id);
        const objects = await countObjects(db, id);
        if (members > 0 || objects > 0)
          throw conflict('domain.notEmpty', { domain: row.name, members, objects });
        rows.push(row);
      }
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteDomains(trx, ids);
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, { action: 'domain.delete', target: r.name });
        return { deleted };
      });
    },

    /** Every domain with system scope; otherwise only the caller's current domain. */
    async list(actor: Actor, query: QueryInput<typeof api.domain.list>) {
      const { rows, total } = await listDomains(
        db,
        { onlyId: actor.systemScope ? undefined : actor.domainId, name: query.name },
        query,
      );
      return { data: rows.map((r) => ({ ...r, users: Number(r.users) })), total };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.domain.create>) {
      if (await findDomainByName(db, body.name)) throw conflict('domain.nameTaken', { domain: body.name });
      const root = await findDomainByName(db, ROOT_DOMAIN);
      const id = randomUUID();
      const row = {
        id,
        name: body.name,
        description: body.description,
        parent_id: root?.id ?? null,
        kek_wrapped: keyring.newDomainKek(id),
        created_at: clock().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        // The creator does not become a member: membership is granted explicitly
        // (user/domain/add-user), so no one gains a domain as a side effect.
        await insertDomain(trx, row);
        await audit.byCaller(trx, actor, meta, { action: 'domain.create', target: row.name });
      });
      return {
        id,
        name: row.name,
        description: row.description,
        parent_id: row.parent_id,
        users: 0,
        created_at: row.created_at,
      };
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
