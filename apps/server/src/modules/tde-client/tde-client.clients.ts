import {
  RDM_SUSPICIOUS_ACTION,
  type api,
  type ClientRow,
  type ProtectionMode,
  type QueryInput,
  type TdeClientRow,
} from '@ksp/contracts';
import { bumpClientConfig } from '../../platform/agent-config.js';
import type { TdeGuardPointTable } from '../../platform/db/schema.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { AgentType, ClientContext } from './tde-client.context.js';
import { effectiveGuardPoints, groupsOf } from './tde-client.effective.js';
import { clientFlags, clientLogCounts, updateClient } from './tde-client.store.js';

type ListQuery = QueryInput<typeof api.tdeClient.list>;

const SUSPICIOUS_WINDOW_MS = 24 * 3600 * 1000;

function protectionOf(points: { gp: TdeGuardPointTable }[]): ProtectionMode {
  const enabled = points.filter((p) => p.gp.enabled === 1);
  const rwp = enabled.some((p) => p.gp.type === 'rwp');
  const cte = enabled.some((p) => p.gp.type !== 'rwp');
  return rwp && cte ? 'cte_rwp' : rwp ? 'rwp' : cte ? 'cte' : 'none';
}

/**
 * The client calls of both sub-consoles over the client module's lifecycle (one lifecycle, one
 * audit), with what these pages add: group names, guard point counts, communication, lock and,
 * for RDM, the protection mode and suspicious processes; the profile, communication and lock.
 */
export function createClientCalls(ctx: ClientContext) {
  const { db, clock } = ctx;

  /** Adds group names, guard point counts and (RDM) protection mode and suspicious count to client rows. */
  async function enrich(actor: Actor, rows: ClientRow[], type: AgentType): Promise<TdeClientRow[]> {
    const ids = rows.map((r) => r.id);
    const groups = await groupsOf(db, actor.domainId, ids);
    const points = await effectiveGuardPoints(db, actor.domainId, ids);
    const flags = new Map(
      (await clientFlags(db, ids)).map((r) => [
        r.id,
        { communication: Number(r.communication_enabled) !== 0, locked: Number(r.client_locked) !== 0 },
      ]),
    );
    const suspicious = new Map<string, number>();
    if (type === 'rdm' && rows.length) {
      const since = new Date(clock().getTime() - SUSPICIOUS_WINDOW_MS).toISOString();
      const serials = rows.map((r) => r.certificate.serial);
      for (const c of await clientLogCounts(db, actor.domainId, RDM_SUSPICIOUS_ACTION, since, serials))
        suspicious.set(c.client_id, Number(c.n));
    }
    return rows.map((r) => {
      const mine = points.get(r.id) ?? [];
      return {
        ...r,
        group_names: (groups.get(r.id) ?? []).map((g) => g.name),
        guard_points: mine.length,
        communication_enabled: flags.get(r.id)?.communication ?? true,
        client_locked: flags.get(r.id)?.locked ?? false,
        ...(type === 'rdm'
          ? { protection_mode: protectionOf(mine), suspicious_24h: suspicious.get(r.certificate.serial) ?? 0 }
          : {}),
      };
    });
  }

  /** One client row of the client module, enriched. */
  const enriched = async (actor: Actor, type: AgentType, row: Promise<ClientRow>) =>
    (await enrich(actor, [await row], type))[0]!;

  const calls = {
    async list(actor: Actor, query: ListQuery, type: AgentType) {
      const page = await ctx.clients().list(actor, query, type);
      return { ...page, data: await enrich(actor, page.data, type) };
    },

    detail: (actor: Actor, id: string, type: AgentType) =>
      enriched(actor, type, ctx.clients().detail(actor, id, type)),

    revoke: (actor: Actor, meta: RequestMeta, id: string, type: AgentType) =>
      enriched(actor, type, ctx.clients().revoke(actor, meta, id, type)),

    remove: (actor: Actor, meta: RequestMeta, id: string, type: AgentType) =>
      enriched(actor, type, ctx.clients().remove(actor, meta, id, type)),

    /** Removes the client at once; its guard points and memberships go with it (foreign keys). */
    async forceRemove(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      return ctx.clients().forceRemove(actor, meta, id, type);
    },

    renew: (actor: Actor, meta: RequestMeta, id: string, type: AgentType) =>
      enriched(actor, type, ctx.clients().renew(actor, meta, id, type)),

    async setProfile(actor: Actor, meta: RequestMeta, id: string, profile: string | null, type: AgentType) {
      const action = `${type}-client.set-profile`;
      const client = await ctx.found(actor, meta, action, id, () => ctx.findClient(actor, id, type));
      await ctx.refusalRecorded(actor, meta, action, client.name, async () => {
        await ctx.checkProfile(actor.domainId, profile);
        await db.transaction().execute(async (trx) => {
          const at = clock();
          await updateClient(trx, client.id, { profile, updated_at: at.toISOString() });
          await bumpClientConfig(trx, actor.domainId, at);
          await ctx.record(trx, actor, meta, action, client.name, client.id, {
            profile,
            previous: client.profile,
          });
        });
      });
      return calls.detail(actor, id, type);
    },

    async setCommunication(actor: Actor, meta: RequestMeta, id: string, enabled: boolean, type: AgentType) {
      const action = `${type}-client.${enabled ? 'enable' : 'disable'}-communication`;
      const client = await ctx.found(actor, meta, action, id, () => ctx.findClient(actor, id, type));
      await db.transaction().execute(async (trx) => {
        await updateClient(trx, client.id, {
          communication_enabled: enabled ? 1 : 0,
          updated_at: clock().toISOString(),
        });
        await ctx.record(trx, actor, meta, action, client.name, client.id);
      });
      return calls.detail(actor, id, type);
    },

    /** Locks or unlocks a TDE client: the agent receives `client_locked` with its next document. */
    async setLocked(actor: Actor, meta: RequestMeta, id: string, locked: boolean) {
      const action = `tde-client.${locked ? 'lock' : 'unlock'}`;
      const client = await ctx.found(actor, meta, action, id, () => ctx.findClient(actor, id, 'tde'));
      await db.transaction().execute(async (trx) => {
        const at = clock();
        await updateClient(trx, client.id, { client_locked: locked ? 1 : 0, updated_at: at.toISOString() });
        await bumpClientConfig(trx, actor.domainId, at);
        await ctx.record(trx, actor, meta, action, client.name, client.id, {
          previous: Number(client.client_locked) !== 0,
        });
      });
      return calls.detail(actor, id, 'tde');
    },
  };
  return calls;
}
