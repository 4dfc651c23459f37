import { randomUUID } from 'node:crypto';
import {
  RDM_SUSPICIOUS_ACTION,
  type AgentAuthBinary,
  type AgentConfig,
  type AgentGuardPoint,
  type AgentKey,
  type AgentPolicy,
  type api,
  type AuthBinaryRow,
  type AuthBinaryPrivilege,
  type ClientGroupRow,
  type ClientRow,
  type GuardPointRow,
  type GuardPointType,
  type Input,
  type ProtectionMode,
  type QueryInput,
  type TdeClientRow,
} from '@ksp/contracts';
import {
  bumpClientConfig,
  clientConfigEpoch,
  type AgentConfigSource,
  type ConfigClient,
  type TdeUsage,
} from '../../platform/agent-config.js';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, type Db, type Executor } from '../../platform/db/database.js';
import type { TdeGuardPointTable } from '../../platform/db/schema.js';
import { conflict, invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { wrapForAgent } from './agent-keys.js';

/** The client types these pages serve: `tde` (the CTE sub-console) and `rdm`. */
export type AgentType = 'tde' | 'rdm';

type ListQuery = QueryInput<typeof api.tdeClient.list>;
type GuardPointBody = Input<typeof api.tdeClient.guardPointCreate>;
type GroupBody = Input<typeof api.tdeClient.groupCreate>;
type AuthBinariesBody = Input<typeof api.tdeClient.authBinariesSet>;

/** Paths compare without trailing separators ("/data/" is "/data"). */
export function normalizePath(path: string): string {
  const trimmed = path.trim();
  if (/^[A-Za-z]:\\$/u.test(trimmed) || trimmed === '/') return trimmed;
  return trimmed.replace(/[\\/]+$/u, '');
}

/** Which policy types a guard point of a client type accepts (directory types only). */
const allowedPolicyTypes: Record<AgentType, AgentPolicy['type'][]> = {
  tde: ['standard'],
  rdm: ['standard', 'rdm'],
};

const SUSPICIOUS_WINDOW_MS = 24 * 3600 * 1000;

/**
 * TDE and RDM clients (README.md): the client pages over the client module's lifecycle, client
 * groups, guard points, and the composition of each agent's configuration document.
 */
export function createTdeClientService(deps: {
  db: Db;
  clock: Clock;
  clients: () => ModuleServices['clients'];
  policies: () => ModuleServices['tdePolicies'];
  keyVault: () => ModuleServices['keyVault'];
}) {
  const { db, clock } = deps;

  async function audit(
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    objectId: string | null,
    details: Record<string, string | number | boolean | null> = {},
    result: 'success' | 'failure' = 'success',
  ) {
    await writeAudit(
      trx,
      { who: subjectOf(actor), action, target, result, ip: meta.ip, objectId, details },
      clock(),
    );
  }

  /** Runs a change; a refusal (KspError) is audited with its message key as the reason, then rethrown. */
  async function audited<T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KspError)
        await audit(db, actor, meta, action, target, null, { reason: err.messageKey }, 'failure');
      throw err;
    }
  }

  /** The object a change is about; its absence (4040) is audited as a refused change, naming the id. */
  const found = <T>(actor: Actor, meta: RequestMeta, action: string, id: string, lookup: () => Promise<T>) =>
    audited(actor, meta, action, id, lookup);

  /** A client of the type in the actor's domain (another domain's or type's: 4040). */
  async function findClient(actor: Actor, id: string, type: AgentType, trx: Executor = db) {
    const row = await trx
      .selectFrom('client')
      .select([
        'id',
        'name',
        'type',
        'domain_id',
        'profile',
        'groups',
        'state',
        'communication_enabled',
        'client_locked',
      ])
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .where('type', '=', type)
      .executeTakeFirst();
    if (!row) throw notFound('client.notFound', { id });
    return row;
  }

  async function findGroup(actor: Actor, id: string, trx: Executor = db) {
    const row = await trx
      .selectFrom('tde_client_group')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', actor.domainId)
      .executeTakeFirst();
    if (!row) throw notFound('tdeClient.groupNotFound', { id });
    return row;
  }

  /** A guard point of the actor's domain that the sub-console of `type` manages (groups: TDE only). */
  async function findGuardPoint(actor: Actor, id: string, type: AgentType, trx: Executor = db) {
    const row = await trx
      .selectFrom('tde_guard_point as g')
      .leftJoin('client as c', 'c.id', 'g.client_id')
      .selectAll('g')
      .select(['c.type as client_type', 'c.name as client_name'])
      .where('g.id', '=', id)
      .where('g.domain_id', '=', actor.domainId)
      .executeTakeFirst();
    if (!row) throw notFound('tdeClient.guardPointNotFound', { id });
    if (row.client_id ? row.client_type !== type : type !== 'tde')
      throw notFound('tdeClient.guardPointNotFound', { id });
    return row;
  }

  /** The groups of clients (id → [{id, name, profile}] in membership order). */
  async function groupsOf(trx: Executor, domainId: string, clientIds: readonly string[]) {
    const map = new Map<string, { id: string; name: string; profile: string | null }[]>();
    if (clientIds.length === 0) return map;
    const rows = await trx
      .selectFrom('tde_client_group_member as m')
      .innerJoin('tde_client_group as g', 'g.id', 'm.group_id')
      .select(['m.client_id', 'g.id', 'g.name', 'g.profile'])
      .where('m.domain_id', '=', domainId)
      .where('m.client_id', 'in', [...clientIds])
      .orderBy('m.added_at')
      .orderBy('g.name')
      .execute();
    for (const r of rows) {
      const list = map.get(r.client_id) ?? [];
      list.push({ id: r.id, name: r.name, profile: r.profile });
      map.set(r.client_id, list);
    }
    return map;
  }

  /** Keeps `client.groups` (JSON ids) equal to the client's memberships. */
  async function syncGroups(trx: Executor, domainId: string, clientId: string, at: string) {
    const groups = (await groupsOf(trx, domainId, [clientId])).get(clientId) ?? [];
    await trx
      .updateTable('client')
      .set({ groups: JSON.stringify(groups.map((g) => g.id)), updated_at: at })
      .where('id', '=', clientId)
      .execute();
  }

  /** Guard points in effect for each client: its own, then its groups' (with origin). */
  async function effectiveGuardPoints(trx: Executor, domainId: string, clientIds: readonly string[]) {
    const result = new Map<string, { gp: TdeGuardPointTable; origin: GuardPointRow['origin'] }[]>();
    if (clientIds.length === 0) return result;
    for (const id of clientIds) result.set(id, []);
    const own = await trx
      .selectFrom('tde_guard_point')
      .selectAll()
      .where('domain_id', '=', domainId)
      .where('client_id', 'in', [...clientIds])
      .orderBy('path')
      .execute();
    for (const gp of own) result.get(gp.client_id!)!.push({ gp, origin: { kind: 'client' } });
    const groups = await groupsOf(trx, domainId, clientIds);
    const groupIds = [...new Set([...groups.values()].flat().map((g) => g.id))];
    if (groupIds.length) {
      const inherited = await trx
        .selectFrom('tde_guard_point')
        .selectAll()
        .where('domain_id', '=', domainId)
        .where('group_id', 'in', groupIds)
        .orderBy('path')
        .execute();
      for (const [clientId, list] of groups)
        for (const g of list)
          for (const gp of inherited.filter((x) => x.group_id === g.id))
            result.get(clientId)!.push({ gp, origin: { kind: 'group', id: g.id, name: g.name } });
    }
    return result;
  }

  const originText = (origin: GuardPointRow['origin']) =>
    origin.kind === 'client' ? 'client' : `group ${origin.name}`;

  async function policyNames(domainId: string, ids: readonly (string | null)[]) {
    const names = new Map<string, string>();
    for (const id of new Set(ids.filter((x): x is string => x !== null))) {
      const described = await deps.policies().describe(db, domainId, id);
      if (described) names.set(id, described.name);
    }
    return names;
  }

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

  function protectionOf(points: { gp: TdeGuardPointTable }[]): ProtectionMode {
    const enabled = points.filter((p) => p.gp.enabled === 1);
    const rwp = enabled.some((p) => p.gp.type === 'rwp');
    const cte = enabled.some((p) => p.gp.type !== 'rwp');
    return rwp && cte ? 'cte_rwp' : rwp ? 'rwp' : cte ? 'cte' : 'none';
  }

  /** Adds group names, guard point counts and (RDM) protection mode and suspicious count to client rows. */
  async function enrich(actor: Actor, rows: ClientRow[], type: AgentType): Promise<TdeClientRow[]> {
    const ids = rows.map((r) => r.id);
    const groups = await groupsOf(db, actor.domainId, ids);
    const points = await effectiveGuardPoints(db, actor.domainId, ids);
    const flags = new Map(
      ids.length
        ? (
            await db
              .selectFrom('client')
              .select(['id', 'communication_enabled', 'client_locked'])
              .where('id', 'in', ids)
              .execute()
          ).map((r) => [
            r.id,
            {
              communication: Number(r.communication_enabled) !== 0,
              locked: Number(r.client_locked) !== 0,
            },
          ])
        : [],
    );
    const suspicious = new Map<string, number>();
    if (type === 'rdm' && rows.length) {
      const since = new Date(clock().getTime() - SUSPICIOUS_WINDOW_MS).toISOString();
      const counted = await db
        .selectFrom('client_log')
        .select(['client_id', (eb) => eb.fn.countAll<string | number>().as('n')])
        .where('domain_id', '=', actor.domainId)
        .where('action', '=', RDM_SUSPICIOUS_ACTION)
        .where('received_at', '>=', since)
        .where(
          'client_id',
          'in',
          rows.map((r) => r.certificate.serial),
        )
        .groupBy('client_id')
        .execute();
      for (const c of counted) suspicious.set(c.client_id, Number(c.n));
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

  async function checkProfile(domainId: string, name: string | null, trx: Executor = db) {
    if (name === null) return;
    const found = await deps.policies().profile(trx, domainId, name);
    if (!found) throw invalid('tdeClient.profileNotFound', { name });
  }

  /**
   * Refuses a guard point path already guarded for a client: `paths` against the guard points
   * in effect for `clientIds` (their own and their groups').
   */
  async function checkPathsFree(
    trx: Executor,
    domainId: string,
    clientIds: readonly string[],
    paths: readonly string[],
  ) {
    if (clientIds.length === 0 || paths.length === 0) return;
    const wanted = new Set(paths);
    const points = await effectiveGuardPoints(trx, domainId, clientIds);
    const names = new Map(
      (
        await trx
          .selectFrom('client')
          .select(['id', 'name'])
          .where('id', 'in', [...clientIds])
          .execute()
      ).map((r) => [r.id, r.name]),
    );
    for (const [clientId, list] of points)
      for (const { gp, origin } of list)
        if (wanted.has(gp.path))
          throw conflict('tdeClient.pathGuarded', {
            path: gp.path,
            client: names.get(clientId) ?? clientId,
            origin: originText(origin),
          });
  }

  async function groupRow(trx: Executor, domainId: string, id: string): Promise<ClientGroupRow> {
    const row = await trx
      .selectFrom('tde_client_group as g')
      .selectAll('g')
      .select((eb) => [
        eb
          .selectFrom('tde_client_group_member as m')
          .whereRef('m.group_id', '=', 'g.id')
          .select((e) => e.fn.countAll<string | number>().as('n'))
          .as('members'),
        eb
          .selectFrom('tde_guard_point as p')
          .whereRef('p.group_id', '=', 'g.id')
          .select((e) => e.fn.countAll<string | number>().as('n'))
          .as('guard_points'),
      ])
      .where('g.id', '=', id)
      .where('g.domain_id', '=', domainId)
      .executeTakeFirstOrThrow();
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
    let q = trx
      .selectFrom('tde_client_group')
      .select('id')
      .where('domain_id', '=', domainId)
      .where('name', '=', name);
    if (except) q = q.where('id', '!=', except);
    if (await q.executeTakeFirst()) throw conflict('tdeClient.groupNameTaken', { name });
  }

  const clientService = {
    async list(actor: Actor, query: ListQuery, type: AgentType) {
      const page = await deps.clients().list(actor, query, type);
      return { ...page, data: await enrich(actor, page.data, type) };
    },

    async detail(actor: Actor, id: string, type: AgentType) {
      const [row] = await enrich(actor, [await deps.clients().detail(actor, id, type)], type);
      return row!;
    },

    async revoke(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      const [row] = await enrich(actor, [await deps.clients().revoke(actor, meta, id, type)], type);
      return row!;
    },

    async remove(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      const [row] = await enrich(actor, [await deps.clients().remove(actor, meta, id, type)], type);
      return row!;
    },

    /** Removes the client at once; its guard points and memberships go with it (foreign keys). */
    async forceRemove(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      return deps.clients().forceRemove(actor, meta, id, type);
    },

    async renew(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      const [row] = await enrich(actor, [await deps.clients().renew(actor, meta, id, type)], type);
      return row!;
    },

    async setProfile(actor: Actor, meta: RequestMeta, id: string, profile: string | null, type: AgentType) {
      const client = await found(actor, meta, `${type}-client.set-profile`, id, () =>
        findClient(actor, id, type),
      );
      await audited(actor, meta, `${type}-client.set-profile`, client.name, async () => {
        await checkProfile(actor.domainId, profile);
        await db.transaction().execute(async (trx) => {
          const at = clock();
          await trx
            .updateTable('client')
            .set({ profile, updated_at: at.toISOString() })
            .where('id', '=', client.id)
            .execute();
          await bumpClientConfig(trx, actor.domainId, at);
          await audit(trx, actor, meta, `${type}-client.set-profile`, client.name, client.id, {
            profile,
            previous: client.profile,
          });
        });
      });
      return clientService.detail(actor, id, type);
    },
  };

  async function setCommunication(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    enabled: boolean,
    type: AgentType,
  ) {
    const client = await found(
      actor,
      meta,
      `${type}-client.${enabled ? 'enable' : 'disable'}-communication`,
      id,
      () => findClient(actor, id, type),
    );
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('client')
        .set({ communication_enabled: enabled ? 1 : 0, updated_at: clock().toISOString() })
        .where('id', '=', client.id)
        .execute();
      await audit(
        trx,
        actor,
        meta,
        `${type}-client.${enabled ? 'enable' : 'disable'}-communication`,
        client.name,
        client.id,
      );
    });
    return clientService.detail(actor, id, type);
  }

  /** Locks or unlocks a TDE client: the agent receives `client_locked` with its next document. */
  async function setLocked(actor: Actor, meta: RequestMeta, id: string, locked: boolean) {
    const action = `tde-client.${locked ? 'lock' : 'unlock'}`;
    const client = await found(actor, meta, action, id, () => findClient(actor, id, 'tde'));
    await db.transaction().execute(async (trx) => {
      const at = clock();
      await trx
        .updateTable('client')
        .set({ client_locked: locked ? 1 : 0, updated_at: at.toISOString() })
        .where('id', '=', client.id)
        .execute();
      await bumpClientConfig(trx, actor.domainId, at);
      await audit(trx, actor, meta, action, client.name, client.id, {
        previous: Number(client.client_locked) !== 0,
      });
    });
    return clientService.detail(actor, id, 'tde');
  }

  /** Signature sets of the domain by id (policy elements of kind "signature"), with their hashes. */
  async function signatureSets(trx: Executor, domainId: string, ids: readonly (string | null)[]) {
    const wanted = [...new Set(ids.filter((x): x is string => x !== null))];
    const sets = new Map<string, { name: string; sha256: string[] }>();
    if (wanted.length === 0) return sets;
    const rows = await trx
      .selectFrom('tde_policy_element')
      .select(['id', 'name', 'entries'])
      .where('domain_id', '=', domainId)
      .where('kind', '=', 'signature')
      .where('id', 'in', wanted)
      .execute();
    for (const r of rows) {
      let entries: { hash_value?: unknown }[] = [];
      try {
        const parsed: unknown = JSON.parse(r.entries);
        if (Array.isArray(parsed)) entries = parsed as { hash_value?: unknown }[];
      } catch {
        entries = [];
      }
      sets.set(r.id, {
        name: r.name,
        sha256: entries.flatMap((e) =>
          typeof e.hash_value === 'string' ? [e.hash_value.toLowerCase()] : [],
        ),
      });
    }
    return sets;
  }

  /** Authorised binaries in effect for a client: its own, then its groups' (with origin). */
  async function effectiveAuthBinaries(trx: Executor, domainId: string, clientId: string) {
    const own = await trx
      .selectFrom('tde_auth_binary')
      .selectAll()
      .where('domain_id', '=', domainId)
      .where('client_id', '=', clientId)
      .orderBy('position')
      .execute();
    const result: { row: (typeof own)[number]; origin: AuthBinaryRow['origin'] }[] = own.map((row) => ({
      row,
      origin: { kind: 'client' },
    }));
    const groups = (await groupsOf(trx, domainId, [clientId])).get(clientId) ?? [];
    if (groups.length) {
      const inherited = await trx
        .selectFrom('tde_auth_binary')
        .selectAll()
        .where('domain_id', '=', domainId)
        .where(
          'group_id',
          'in',
          groups.map((g) => g.id),
        )
        .orderBy('position')
        .execute();
      for (const g of groups)
        for (const row of inherited.filter((x) => x.group_id === g.id))
          result.push({ row, origin: { kind: 'group', id: g.id, name: g.name } });
    }
    return result;
  }

  async function ownAuthBinaries(
    trx: Executor,
    domainId: string,
    target: { client_id?: string; group_id?: string },
  ) {
    let q = trx.selectFrom('tde_auth_binary').selectAll().where('domain_id', '=', domainId);
    q = target.client_id
      ? q.where('client_id', '=', target.client_id)
      : q.where('group_id', '=', target.group_id!);
    return q.orderBy('position').execute();
  }

  async function authBinaryViews(
    domainId: string,
    list: {
      row: { filename: string; privilege: string; signature_set_id: string | null };
      origin: AuthBinaryRow['origin'];
    }[],
  ): Promise<AuthBinaryRow[]> {
    const sets = await signatureSets(
      db,
      domainId,
      list.map((x) => x.row.signature_set_id),
    );
    return list.map(({ row, origin }) => ({
      filename: row.filename,
      privilege: row.privilege as AuthBinaryPrivilege,
      signature_set_id: row.signature_set_id,
      signature_set_name: row.signature_set_id ? (sets.get(row.signature_set_id)?.name ?? null) : null,
      origin,
    }));
  }

  const authBinaryService = {
    async list(actor: Actor, query: { client_id?: string | undefined; group_id?: string | undefined }) {
      if (!query.client_id === !query.group_id) throw invalid('tdeClient.target');
      if (query.client_id) {
        const client = await findClient(actor, query.client_id, 'tde');
        return {
          data: await authBinaryViews(
            actor.domainId,
            await effectiveAuthBinaries(db, actor.domainId, client.id),
          ),
        };
      }
      const group = await findGroup(actor, query.group_id!);
      const rows = await ownAuthBinaries(db, actor.domainId, { group_id: group.id });
      return {
        data: await authBinaryViews(
          actor.domainId,
          rows.map((row) => ({ row, origin: { kind: 'group', id: group.id, name: group.name } })),
        ),
      };
    },

    /** Replaces the target's own list; the agents of the domain receive it with the next document. */
    async set(actor: Actor, meta: RequestMeta, body: AuthBinariesBody) {
      const action = 'tde-client.auth-binaries.set';
      if (!body.client_id === !body.group_id) {
        await audit(
          db,
          actor,
          meta,
          action,
          body.client_id ?? body.group_id ?? '',
          null,
          { reason: 'tdeClient.target' },
          'failure',
        );
        throw invalid('tdeClient.target');
      }
      const client = body.client_id
        ? await found(actor, meta, action, body.client_id, () => findClient(actor, body.client_id!, 'tde'))
        : undefined;
      const group = body.group_id
        ? await found(actor, meta, action, body.group_id, () => findGroup(actor, body.group_id!))
        : undefined;
      const targetName = client ? client.name : group!.name;
      return audited(actor, meta, action, targetName, async () => {
        const entries = body.entries.map((e) => ({ ...e, filename: normalizePath(e.filename) }));
        const seen = new Set<string>();
        entries.forEach((e, index) => {
          if (seen.has(e.filename))
            throw invalid('tdeClient.authBinaryDuplicate', { index, filename: e.filename });
          seen.add(e.filename);
        });
        const sets = await signatureSets(
          db,
          actor.domainId,
          entries.map((e) => e.signature_set_id),
        );
        entries.forEach((e, index) => {
          if (e.signature_set_id && !sets.has(e.signature_set_id))
            throw notFound('tdeClient.signatureSetNotFound', { index, id: e.signature_set_id });
        });
        await db.transaction().execute(async (trx) => {
          const at = clock();
          let del = trx.deleteFrom('tde_auth_binary').where('domain_id', '=', actor.domainId);
          del = client ? del.where('client_id', '=', client.id) : del.where('group_id', '=', group!.id);
          await del.execute();
          if (entries.length)
            await trx
              .insertInto('tde_auth_binary')
              .values(
                entries.map((e, position) => ({
                  id: randomUUID(),
                  domain_id: actor.domainId,
                  client_id: client?.id ?? null,
                  group_id: group?.id ?? null,
                  filename: e.filename,
                  privilege: e.privilege,
                  signature_set_id: e.signature_set_id,
                  position,
                  created_at: at.toISOString(),
                })),
              )
              .execute();
          await bumpClientConfig(trx, actor.domainId, at);
          await audit(trx, actor, meta, action, targetName, client?.id ?? group!.id, {
            ...(client ? { client: client.name } : { group: group!.name }),
            entries: entries.length,
            filenames: entries
              .map((e) => `${e.privilege}:${e.filename}`)
              .join(', ')
              .slice(0, 2000),
          });
        });
        const origin: AuthBinaryRow['origin'] = client
          ? { kind: 'client' }
          : { kind: 'group', id: group!.id, name: group!.name };
        const rows = await ownAuthBinaries(
          db,
          actor.domainId,
          client ? { client_id: client.id } : { group_id: group!.id },
        );
        return {
          data: await authBinaryViews(
            actor.domainId,
            rows.map((row) => ({ row, origin })),
          ),
        };
      });
    },
  };

  const guardPointService = {
    async list(
      actor: Actor,
      query: { client_id?: string | undefined; group_id?: string | undefined },
      type: AgentType,
    ) {
      if (!query.client_id === !query.group_id || (query.group_id && type !== 'tde'))
        throw invalid('tdeClient.target');
      if (query.client_id) {
        const client = await findClient(actor, query.client_id, type);
        const points = (await effectiveGuardPoints(db, actor.domainId, [client.id])).get(client.id) ?? [];
        const names = await policyNames(
          actor.domainId,
          points.map((p) => p.gp.policy_id),
        );
        return { data: points.map((p) => gpView(p.gp, p.origin, names)) };
      }
      const group = await findGroup(actor, query.group_id!);
      const rows = await db
        .selectFrom('tde_guard_point')
        .selectAll()
        .where('domain_id', '=', actor.domainId)
        .where('group_id', '=', group.id)
        .orderBy('path')
        .execute();
      const names = await policyNames(
        actor.domainId,
        rows.map((r) => r.policy_id),
      );
      return {
        data: rows.map((r) => gpView(r, { kind: 'group', id: group.id, name: group.name }, names)),
      };
    },

    async create(actor: Actor, meta: RequestMeta, body: GuardPointBody, type: AgentType) {
      const path = normalizePath(body.path);
      return audited(actor, meta, `${type}-client.guard-point.create`, path, async () => {
        if (!body.client_id === !body.group_id || (body.group_id && type !== 'tde'))
          throw invalid('tdeClient.target');
        const client = body.client_id ? await findClient(actor, body.client_id, type) : undefined;
        const group = body.group_id ? await findGroup(actor, body.group_id) : undefined;
        if (body.type === 'rwp') {
          if (body.policy_id !== null) throw invalid('tdeClient.policyNotAllowed');
        } else {
          if (body.policy_id === null) throw invalid('tdeClient.policyRequired', { type: body.type });
          const policy = await deps.policies().describe(db, actor.domainId, body.policy_id);
          if (!policy) throw invalid('tdeClient.policyNotFound', { id: body.policy_id });
          const allowed = allowedPolicyTypes[type];
          if (!allowed.includes(policy.type))
            throw invalid('tdeClient.policyType', {
              name: policy.name,
              actual: policy.type,
              allowed: allowed.join(', '),
            });
        }
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
        const origin: GuardPointRow['origin'] = group
          ? { kind: 'group', id: group.id, name: group.name }
          : { kind: 'client' };
        await db.transaction().execute(async (trx) => {
          if (client) await checkPathsFree(trx, actor.domainId, [client.id], [path]);
          if (group) {
            const own = await trx
              .selectFrom('tde_guard_point')
              .select('id')
              .where('group_id', '=', group.id)
              .where('path', '=', path)
              .executeTakeFirst();
            if (own) throw conflict('tdeClient.groupPathGuarded', { path, group: group.name });
            const members = await trx
              .selectFrom('tde_client_group_member')
              .select('client_id')
              .where('group_id', '=', group.id)
              .execute();
            await checkPathsFree(
              trx,
              actor.domainId,
              members.map((m) => m.client_id),
              [path],
            );
          }
          await trx.insertInto('tde_guard_point').values(row).execute();
          await bumpClientConfig(trx, actor.domainId, at);
          await audit(trx, actor, meta, `${type}-client.guard-point.create`, path, row.id, {
            type: row.type,
            policy_id: row.policy_id,
            enabled: body.enabled,
            ...(client ? { client: client.name } : { group: group!.name }),
          });
        });
        return gpView(row, origin, await policyNames(actor.domainId, [row.policy_id]));
      });
    },

    async setEnabled(actor: Actor, meta: RequestMeta, id: string, enabled: boolean, type: AgentType) {
      const gp = await found(
        actor,
        meta,
        `${type}-client.guard-point.${enabled ? 'enable' : 'disable'}`,
        id,
        () => findGuardPoint(actor, id, type),
      );
      const at = clock();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('tde_guard_point')
          .set({ enabled: enabled ? 1 : 0, updated_at: at.toISOString() })
          .where('id', '=', gp.id)
          .execute();
        await bumpClientConfig(trx, actor.domainId, at);
        await audit(
          trx,
          actor,
          meta,
          `${type}-client.guard-point.${enabled ? 'enable' : 'disable'}`,
          gp.path,
          gp.id,
          {
            client: gp.client_name ?? null,
            group_id: gp.group_id,
          },
        );
      });
      const group = gp.group_id ? await findGroup(actor, gp.group_id) : undefined;
      return gpView(
        { ...gp, enabled: enabled ? 1 : 0, updated_at: at.toISOString() },
        group ? { kind: 'group', id: group.id, name: group.name } : { kind: 'client' },
        await policyNames(actor.domainId, [gp.policy_id]),
      );
    },

    async remove(actor: Actor, meta: RequestMeta, id: string, type: AgentType) {
      const gp = await found(actor, meta, `${type}-client.guard-point.delete`, id, () =>
        findGuardPoint(actor, id, type),
      );
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('tde_guard_point').where('id', '=', gp.id).execute();
        await bumpClientConfig(trx, actor.domainId, clock());
        await audit(trx, actor, meta, `${type}-client.guard-point.delete`, gp.path, gp.id, {
          client: gp.client_name ?? null,
          group_id: gp.group_id,
          policy_id: gp.policy_id,
        });
      });
      return { deleted: 1 };
    },
  };

  const groupService = {
    async list(actor: Actor, query: QueryInput<typeof api.tdeClient.groupList>) {
      let q = db.selectFrom('tde_client_group').where('domain_id', '=', actor.domainId);
      if (query.name) q = q.where('name', 'like', `%${escapeLike(query.name)}%`);
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const ids = await q
        .select('id')
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      const data: ClientGroupRow[] = [];
      for (const { id } of ids) data.push(await groupRow(db, actor.domainId, id));
      return { data, total: Number(total?.n ?? 0) };
    },

    async detail(actor: Actor, id: string) {
      const group = await findGroup(actor, id);
      const members = await deps.clients().list(actor, { page: 1, page_size: 1000, group: group.id }, 'tde');
      return {
        ...(await groupRow(db, actor.domainId, group.id)),
        member_list: members.data.map((m) => ({ id: m.id, name: m.name, host: m.host, status: m.status })),
      };
    },

    async create(actor: Actor, meta: RequestMeta, body: GroupBody) {
      return audited(actor, meta, 'tde-client.group.create', body.name, async () => {
        await checkProfile(actor.domainId, body.profile);
        const at = clock().toISOString();
        const id = randomUUID();
        await db.transaction().execute(async (trx) => {
          await groupNameFree(trx, actor.domainId, body.name);
          await trx
            .insertInto('tde_client_group')
            .values({
              id,
              domain_id: actor.domainId,
              name: body.name,
              description: body.description,
              profile: body.profile,
              created_at: at,
              updated_at: at,
            })
            .execute();
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'tde-client.group.create', body.name, id, { profile: body.profile });
        });
        return groupRow(db, actor.domainId, id);
      });
    },

    async update(actor: Actor, meta: RequestMeta, body: GroupBody & { id: string }) {
      const group = await found(actor, meta, 'tde-client.group.update', body.id, () =>
        findGroup(actor, body.id),
      );
      return audited(actor, meta, 'tde-client.group.update', group.name, async () => {
        await checkProfile(actor.domainId, body.profile);
        await db.transaction().execute(async (trx) => {
          await groupNameFree(trx, actor.domainId, body.name, group.id);
          await trx
            .updateTable('tde_client_group')
            .set({
              name: body.name,
              description: body.description,
              profile: body.profile,
              updated_at: clock().toISOString(),
            })
            .where('id', '=', group.id)
            .execute();
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'tde-client.group.update', body.name, group.id, {
            previous_name: group.name,
            profile: body.profile,
          });
        });
        return groupRow(db, actor.domainId, group.id);
      });
    },

    /** Refused while the group has guard points: unguarding is a decision about the members' data. */
    async remove(actor: Actor, meta: RequestMeta, id: string) {
      const group = await found(actor, meta, 'tde-client.group.delete', id, () => findGroup(actor, id));
      return audited(actor, meta, 'tde-client.group.delete', group.name, async () => {
        await db.transaction().execute(async (trx) => {
          const row = await groupRow(trx, actor.domainId, group.id);
          if (row.guard_points > 0)
            throw conflict('tdeClient.groupHasGuardPoints', { name: group.name, count: row.guard_points });
          const members = await trx
            .selectFrom('tde_client_group_member')
            .select('client_id')
            .where('group_id', '=', group.id)
            .execute();
          await trx.deleteFrom('tde_client_group_member').where('group_id', '=', group.id).execute();
          const at = clock().toISOString();
          for (const m of members) await syncGroups(trx, actor.domainId, m.client_id, at);
          await trx.deleteFrom('tde_auth_binary').where('group_id', '=', group.id).execute();
          await trx.deleteFrom('tde_client_group').where('id', '=', group.id).execute();
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'tde-client.group.delete', group.name, group.id, {
            members: members.length,
          });
        });
        return { deleted: 1 };
      });
    },

    async addMembers(actor: Actor, meta: RequestMeta, id: string, clientIds: readonly string[]) {
      const group = await found(actor, meta, 'tde-client.group.add-members', id, () => findGroup(actor, id));
      return audited(actor, meta, 'tde-client.group.add-members', group.name, async () => {
        await db.transaction().execute(async (trx) => {
          const clients = [];
          for (const cid of new Set(clientIds)) clients.push(await findClient(actor, cid, 'tde', trx));
          const already = new Set(
            (
              await trx
                .selectFrom('tde_client_group_member')
                .select('client_id')
                .where('group_id', '=', group.id)
                .execute()
            ).map((r) => r.client_id),
          );
          const joining = clients.filter((c) => !already.has(c.id));
          const paths = (
            await trx.selectFrom('tde_guard_point').select('path').where('group_id', '=', group.id).execute()
          ).map((r) => r.path);
          await checkPathsFree(
            trx,
            actor.domainId,
            joining.map((c) => c.id),
            paths,
          );
          const at = clock().toISOString();
          for (const c of joining) {
            await trx
              .insertInto('tde_client_group_member')
              .values({ group_id: group.id, client_id: c.id, domain_id: actor.domainId, added_at: at })
              .execute();
            await syncGroups(trx, actor.domainId, c.id, at);
          }
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'tde-client.group.add-members', group.name, group.id, {
            clients: joining.map((c) => c.name).join(', '),
          });
        });
        return groupRow(db, actor.domainId, group.id);
      });
    },

    async removeMembers(actor: Actor, meta: RequestMeta, id: string, clientIds: readonly string[]) {
      const group = await found(actor, meta, 'tde-client.group.remove-members', id, () =>
        findGroup(actor, id),
      );
      await db.transaction().execute(async (trx) => {
        const leaving = await trx
          .selectFrom('tde_client_group_member as m')
          .innerJoin('client as c', 'c.id', 'm.client_id')
          .select(['c.id', 'c.name'])
          .where('m.group_id', '=', group.id)
          .where('m.client_id', 'in', [...clientIds])
          .execute();
        const at = clock().toISOString();
        for (const c of leaving) {
          await trx
            .deleteFrom('tde_client_group_member')
            .where('group_id', '=', group.id)
            .where('client_id', '=', c.id)
            .execute();
          await syncGroups(trx, actor.domainId, c.id, at);
        }
        await bumpClientConfig(trx, actor.domainId, clock());
        await audit(trx, actor, meta, 'tde-client.group.remove-members', group.name, group.id, {
          clients: leaving.map((c) => c.name).join(', '),
        });
      });
      return groupRow(db, actor.domainId, group.id);
    },
  };

  /** The agent's whole document (platform/agent-config.ts, contracts/agent.ts). */
  const agentConfig: AgentConfigSource = {
    async configFor(trx: Executor, client: ConfigClient): Promise<AgentConfig> {
      // Read first: a change committed while composing raises the epoch past this version.
      const version = await clientConfigEpoch(trx, client.domain_id);
      const row = await trx
        .selectFrom('client')
        .select(['name', 'profile', 'client_locked'])
        .where('id', '=', client.id)
        .where('domain_id', '=', client.domain_id)
        .executeTakeFirst();
      const name = row?.name ?? client.id;
      const groups = (await groupsOf(trx, client.domain_id, [client.id])).get(client.id) ?? [];
      // The profile as stored now: the caller's row may have been read before a change (a config
      // call held open across a set-profile).
      const own = row ? row.profile : client.profile;
      const profileName = own ?? groups.find((g) => g.profile !== null)?.profile ?? null;
      const policies = deps.policies();
      const profile = await policies.profile(trx, client.domain_id, profileName, (id, material) =>
        wrapForAgent(client.cert_pem, { id, name: id, version: 1, material }),
      );
      const points = (await effectiveGuardPoints(trx, client.domain_id, [client.id])).get(client.id) ?? [];
      const compiled = new Map<string, AgentPolicy | undefined>();
      const guardPoints: AgentGuardPoint[] = [];
      for (const { gp, origin } of points) {
        let policy: AgentPolicy | undefined;
        if (gp.policy_id) {
          if (!compiled.has(gp.policy_id))
            compiled.set(gp.policy_id, await policies.compile(trx, client.domain_id, gp.policy_id));
          policy = compiled.get(gp.policy_id);
        }
        guardPoints.push({
          id: gp.id,
          path: gp.path,
          type: gp.type,
          // A policy gone (or no longer the domain's) leaves the guard point unapplied.
          enabled: gp.enabled === 1 && (gp.type === 'rwp' || policy !== undefined),
          origin,
          policy: policy ?? null,
        });
      }
      // The keys the key rules of enabled guard points' policies name, wrapped to the client.
      const keyIds = new Set<string>();
      for (const gp of guardPoints)
        if (gp.enabled && gp.policy)
          for (const rule of gp.policy.key_rules) if (rule.key_id) keyIds.add(rule.key_id);
      const keys: AgentKey[] = [];
      const vault = deps.keyVault();
      for (const keyId of keyIds) {
        const key = await vault.agentKey(trx, client.domain_id, keyId, { id: client.id, name });
        if (!key) continue;
        try {
          const wrapped = wrapForAgent(client.cert_pem, key);
          if (wrapped) keys.push(wrapped);
        } finally {
          key.material.fill(0);
        }
      }
      const binaries = await effectiveAuthBinaries(trx, client.domain_id, client.id);
      const sets = await signatureSets(
        trx,
        client.domain_id,
        binaries.map((b) => b.row.signature_set_id),
      );
      const authBinaries: AgentAuthBinary[] = binaries.map(({ row, origin }) => ({
        filename: row.filename,
        privilege: row.privilege as AgentAuthBinary['privilege'],
        // A set gone: no hash can match, so the binary is no longer trusted (never "any").
        ...(row.signature_set_id ? { sha256: sets.get(row.signature_set_id)?.sha256 ?? [] } : {}),
        origin,
      }));
      return {
        client_id: client.id,
        version,
        profile,
        guard_points: guardPoints,
        keys,
        auth_binaries: authBinaries,
        client_locked: Number(row?.client_locked ?? 0) !== 0,
      };
    },
  };

  const tdeUsage: TdeUsage = {
    async guardPointsUsingPolicy(trx, domainId, policyId) {
      const row = await trx
        .selectFrom('tde_guard_point')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('domain_id', '=', domainId)
        .where('policy_id', '=', policyId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async usersOfProfile(trx, domainId, profileName) {
      const clients = await trx
        .selectFrom('client')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('domain_id', '=', domainId)
        .where('profile', '=', profileName)
        .where('state', '!=', 'deleted')
        .executeTakeFirst();
      const groups = await trx
        .selectFrom('tde_client_group')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('domain_id', '=', domainId)
        .where('profile', '=', profileName)
        .executeTakeFirst();
      return Number(clients?.n ?? 0) + Number(groups?.n ?? 0);
    },
  };

  return {
    clients: { ...clientService, setCommunication, setLocked },
    authBinaries: authBinaryService,
    guardPoints: guardPointService,
    groups: groupService,
    agentConfig,
    tdeUsage,
  };
}

export type TdeClientService = ReturnType<typeof createTdeClientService>;
