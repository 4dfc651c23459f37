import { randomUUID } from 'node:crypto';
import type { api, ClientGroupRow, Input, QueryInput } from '@ksp/contracts';
import { bumpClientConfig } from '../../platform/agent-config.js';
import type { Executor } from '../../platform/db/database.js';
import { conflict } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ClientContext } from './tde-client.context.js';
import { checkPathsFree, syncGroups } from './tde-client.effective.js';
import {
  deleteGroup,
  deleteMembers,
  groupGuardPointPaths,
  groupIdPage,
  groupNameUsed,
  groupWithCounts,
  insertGroup,
  insertMember,
  memberIds,
  membersAmong,
  updateGroup,
} from './tde-client.store.js';

type GroupBody = Input<typeof api.tdeClient.groupCreate>;

async function groupRow(trx: Executor, domainId: string, id: string): Promise<ClientGroupRow> {
  const row = await groupWithCounts(trx, domainId, id);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    profile: row.profile,
    members: Number(row.members ?? 0),
    guard_points: Number(row.guard_points ?? 0),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function groupNameFree(trx: Executor, domainId: string, name: string, except?: string) {
  if (await groupNameUsed(trx, domainId, name, except)) throw conflict('tdeClient.groupNameTaken', { name });
}

/** Client groups (TDE only): list, detail, create, update, delete, members added and removed. */
export function createGroupCalls(ctx: ClientContext) {
  const { db, clock } = ctx;

  /** The group a change names; its absence is recorded as the change's refusal. */
  const foundGroup = (actor: Actor, meta: RequestMeta, action: string, id: string) =>
    ctx.found(actor, meta, action, id, () => ctx.findGroup(actor, id));

  return {
    async list(actor: Actor, query: QueryInput<typeof api.tdeClient.groupList>) {
      const { rows, total } = await groupIdPage(db, actor.domainId, query);
      const data: ClientGroupRow[] = [];
      for (const { id } of rows) data.push(await groupRow(db, actor.domainId, id));
      return { data, total };
    },

    async detail(actor: Actor, id: string) {
      const group = await ctx.findGroup(actor, id);
      const members = await ctx.clients().list(actor, { page: 1, page_size: 1000, group: group.id }, 'tde');
      return {
        ...(await groupRow(db, actor.domainId, group.id)),
        member_list: members.data.map((m) => ({ id: m.id, name: m.name, host: m.host, status: m.status })),
      };
    },

    async create(actor: Actor, meta: RequestMeta, body: GroupBody) {
      const action = 'tde-client.group.create';
      return ctx.refusalRecorded(actor, meta, action, body.name, async () => {
        await ctx.checkProfile(actor.domainId, body.profile);
        const at = clock().toISOString();
        const id = randomUUID();
        await db.transaction().execute(async (trx) => {
          await groupNameFree(trx, actor.domainId, body.name);
          await insertGroup(trx, {
            id,
            domain_id: actor.domainId,
            name: body.name,
            description: body.description,
            profile: body.profile,
            created_at: at,
            updated_at: at,
          });
          await bumpClientConfig(trx, actor.domainId, clock());
          await ctx.record(trx, actor, meta, action, body.name, id, { profile: body.profile });
        });
        return groupRow(db, actor.domainId, id);
      });
    },

    async update(actor: Actor, meta: RequestMeta, body: GroupBody & { id: string }) {
      const action = 'tde-client.group.update';
      const group = await foundGroup(actor, meta, action, body.id);
      return ctx.refusalRecorded(actor, meta, action, group.name, async () => {
        await ctx.checkProfile(actor.domainId, body.profile);
        await db.transaction().execute(async (trx) => {
          await groupNameFree(trx, actor.domainId, body.name, group.id);
          await updateGroup(trx, group.id, {
            name: body.name,
            description: body.description,
            profile: body.profile,
            updated_at: clock().toISOString(),
          });
          await bumpClientConfig(trx, actor.domainId, clock());
          await ctx.record(trx, actor, meta, action, body.name, group.id, {
            previous_name: group.name,
            profile: body.profile,
          });
        });
        return groupRow(db, actor.domainId, group.id);
      });
    },

    /** Refused while the group has guard points: unguarding is a decision about the members' data. */
    async remove(actor: Actor, meta: RequestMeta, id: string) {
      const action = 'tde-client.group.delete';
      const group = await foundGroup(actor, meta, action, id);
      return ctx.refusalRecorded(actor, meta, action, group.name, async () => {
        await db.transaction().execute(async (trx) => {
          const row = await groupRow(trx, actor.domainId, group.id);
          if (row.guard_points > 0)
            throw conflict('tdeClient.groupHasGuardPoints', { name: group.name, count: row.guard_points });
          const members = await memberIds(trx, group.id);
          await deleteMembers(trx, group.id);
          const at = clock().toISOString();
          for (const clientId of members) await syncGroups(trx, actor.domainId, clientId, at);
          await deleteGroup(trx, group.id);
          await bumpClientConfig(trx, actor.domainId, clock());
          await ctx.record(trx, actor, meta, action, group.name, group.id, { members: members.length });
        });
        return { deleted: 1 };
      });
    },

    async addMembers(actor: Actor, meta: RequestMeta, id: string, clientIds: readonly string[]) {
      const action = 'tde-client.group.add-members';
      const group = await foundGroup(actor, meta, action, id);
      return ctx.refusalRecorded(actor, meta, action, group.name, async () => {
        await db.transaction().execute(async (trx) => {
          const clients = [];
          for (const cid of new Set(clientIds)) clients.push(await ctx.findClient(actor, cid, 'tde', trx));
          const already = new Set(await memberIds(trx, group.id));
          const joining = clients.filter((c) => !already.has(c.id));
          await checkPathsFree(
            trx,
            actor.domainId,
            joining.map((c) => c.id),
            await groupGuardPointPaths(trx, group.id),
          );
          const at = clock().toISOString();
          for (const c of joining) {
            await insertMember(trx, {
              group_id: group.id,
              client_id: c.id,
              domain_id: actor.domainId,
              added_at: at,
            });
            await syncGroups(trx, actor.domainId, c.id, at);
          }
          await bumpClientConfig(trx, actor.domainId, clock());
          await ctx.record(trx, actor, meta, action, group.name, group.id, {
            clients: joining.map((c) => c.name).join(', '),
          });
        });
        return groupRow(db, actor.domainId, group.id);
      });
    },

    async removeMembers(actor: Actor, meta: RequestMeta, id: string, clientIds: readonly string[]) {
      const action = 'tde-client.group.remove-members';
      const group = await foundGroup(actor, meta, action, id);
      await db.transaction().execute(async (trx) => {
        const leaving = await membersAmong(trx, group.id, clientIds);
        const at = clock().toISOString();
        for (const c of leaving) {
          await deleteMembers(trx, group.id, c.id);
          await syncGroups(trx, actor.domainId, c.id, at);
        }
        await bumpClientConfig(trx, actor.domainId, clock());
        await ctx.record(trx, actor, meta, action, group.name, group.id, {
          clients: leaving.map((c) => c.name).join(', '),
        });
      });
      return groupRow(db, actor.domainId, group.id);
    },
  };
}
