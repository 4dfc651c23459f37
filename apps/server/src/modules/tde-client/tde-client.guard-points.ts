import { randomUUID } from 'node:crypto';
import type { AgentPolicy, api, GuardPointRow, GuardPointType, Input } from '@ksp/contracts';
import { bumpClientConfig } from '../../platform/agent-config.js';
import type { TdeGuardPointTable } from '../../platform/db/schema.js';
import { conflict, invalid } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { normalizePath, type AgentType, type ClientContext } from './tde-client.context.js';
import { checkPathsFree, clientGuardPoints } from './tde-client.effective.js';
import {
  deleteGuardPoint,
  groupGuardPointPaths,
  guardPointsOf,
  insertGuardPoint,
  memberIds,
  setGuardPointEnabled,
} from './tde-client.store.js';

type GuardPointBody = Input<typeof api.tdeClient.guardPointCreate>;

/** Which policy types a guard point of a client type accepts (directory types only). */
const allowedPolicyTypes: Record<AgentType, AgentPolicy['type'][]> = {
  tde: ['standard'],
  rdm: ['standard', 'rdm'],
};

function gpView(gp: TdeGuardPointTable, origin: GuardPointRow['origin'], names: Map<string, string>) {
  return {
    id: gp.id,
    path: gp.path,
    type: gp.type as GuardPointType,
    policy_id: gp.policy_id,
    policy_name: gp.policy_id ? (names.get(gp.policy_id) ?? null) : null,
    enabled: gp.enabled === 1,
    origin,
    created_at: gp.created_at,
  } satisfies GuardPointRow;
}

const groupOrigin = (group: { id: string; name: string }): GuardPointRow['origin'] => ({
  kind: 'group',
  id: group.id,
  name: group.name,
});

/** Guard points on a client or a group: list, create, enable or disable, delete. */
export function createGuardPointCalls(ctx: ClientContext) {
  const { db, clock } = ctx;

  async function policyNames(domainId: string, ids: readonly (string | null)[]) {
    const names = new Map<string, string>();
    for (const id of new Set(ids.filter((x): x is string => x !== null))) {
      const described = await ctx.policies().describe(db, domainId, id);
      if (described) names.set(id, described.name);
    }
    return names;
  }

  /** Refuses a policy a guard point of `type` may not use (rwp: none; others: one of the domain's). */
  async function checkPolicy(domainId: string, body: GuardPointBody, type: AgentType) {
    if (body.type === 'rwp') {
      if (body.policy_id !== null) throw invalid('tdeClient.policyNotAllowed');
      return;
    }
    if (body.policy_id === null) throw invalid('tdeClient.policyRequired', { type: body.type });
    const policy = await ctx.policies().describe(db, domainId, body.policy_id);
    if (!policy) throw invalid('tdeClient.policyNotFound', { id: body.policy_id });
    const allowed = allowedPolicyTypes[type];
    if (!allowed.includes(policy.type))
      throw invalid('tdeClient.policyType', {
        name: policy.name,
        actual: policy.type,
        allowed: allowed.join(', '),
      });
  }

  return {
    async list(
      actor: Actor,
      query: { client_id?: string | undefined; group_id?: string | undefined },
      type: AgentType,
    ) {
      ctx.checkTarget(query, type);
      if (query.client_id) {
        const client = await ctx.findClient(actor, query.client_id, type);
        const points = await clientGuardPoints(db, actor.domainId, client.id);
        const names = await policyNames(
          actor.domainId,
          points.map((p) => p.gp.policy_id),
        );
        return { data: points.map((p) => gpView(p.gp, p.origin, names)) };
      }
      const group = await ctx.findGroup(actor, query.group_id!);
      const rows = await guardPointsOf(db, actor.domainId, 'group_id', [group.id]);
      const names = await policyNames(
        actor.domainId,
        rows.map((r) => r.policy_id),
      );
      return { data: rows.map((r) => gpView(r, groupOrigin(group), names)) };
    },

    async create(actor: Actor, meta: RequestMeta, body: GuardPointBody, type: AgentType) {
      const path = normalizePath(body.path);
      const action = `${type}-client.guard-point.create`;
      return ctx.refusalRecorded(actor, meta, action, path, async () => {
        ctx.checkTarget(body, type);
        const client = body.client_id ? await ctx.findClient(actor, body.client_id, type) : undefined;
        const group = body.group_id ? await ctx.findGroup(actor, body.group_id) : undefined;
        await checkPolicy(actor.domainId, body, type);
        const at = clock();
        const row: TdeGuardPointTable = {
          id: randomUUID(),
          domain_id: actor.domainId,
          client_id: client?.id ?? null,
          group_id: group?.id ?? null,
          path,
          type: body.type,
          policy_id: body.type === 'rwp' ? null : body.policy_id,
          enabled: body.enabled ? 1 : 0,
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
        };
        await db.transaction().execute(async (trx) => {
          if (client) await checkPathsFree(trx, actor.domainId, [client.id], [path]);
          if (group) {
            if ((await groupGuardPointPaths(trx, group.id)).includes(path))
              throw conflict('tdeClient.groupPathGuarded', { path, group: group.name });
            await checkPathsFree(trx, actor.domainId, await memberIds(trx, group.id), [path]);
          }
          await insertGuardPoint(trx, row);
          await bumpClientConfig(trx, actor.domainId, at);
          await ctx.record(trx, actor, meta, action, path, row.id, {
            type: row.type,
            policy_id: row.policy_id,
            enabled: body.enabled,
            ...(client ? { client: client.name } : { group: group!.name }),
          });
        });
        return gpView(
          row,
          group ? groupOrigin(group) : { kind: 'client' },
          await policyNames(actor.domainId, [row.policy_id]),
        );
      });
    },

    async setEnabled(actor: Actor, meta: RequestMeta, id: string, enabled: boolean, type: AgentType) {
      const action = `${type}-client.guard-point.${enabled ? 'enable' : 'disable'}`;
      const gp = await ctx.found(actor, meta, action, id, () => ctx.findGuardPoint(actor, id, type));
      const at = clock();
      await db.transaction().execute(async (trx) => {
        await setGuardPointEnabled(trx, gp.id, enabled ? 1 : 0, at.toISOString());
        await bumpClientConfig(trx, actor.domainId, at);
        await ctx.record(trx, actor, meta, action, gp.path, gp.id, {
          client: gp.client_name ?? null,
          group_id: gp.group_id,
        });
      });
      const group = gp.group_id ? await ctx.findGroup(actor, gp.group_id) : undefined;
      return gpView(
        { ...gp, enabled: enabled ? 1 : 0, updated_at: at.toISOString() },
        group ? groupOrigin(group) : { kind: 'client' },
        await policyNames(actor.domainId, [gp.policy_id]),
      );
    },

    async remove(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      const action = `${type}-client.guard-point.delete`;
      const gp = await ctx.found(actor, meta, action, id, () => ctx.findGuardPoint(actor, id, type));
      await db.transaction().execute(async (trx) => {
        await deleteGuardPoint(trx, gp.id);
        await bumpClientConfig(trx, actor.domainId, clock());
        await ctx.record(trx, actor, meta, action, gp.path, gp.id, {
          client: gp.client_name ?? null,
          group_id: gp.group_id,
          policy_id: gp.policy_id,
        });
      });
      return { deleted: 1 };
    },
  };
}
