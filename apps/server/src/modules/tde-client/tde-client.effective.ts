import type { AuthBinaryRow, GuardPointRow } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import type { TdeAuthBinaryTable, TdeGuardPointTable } from '../../platform/db/schema.js';
import { conflict } from '../../platform/errors.js';
import {
  authBinariesOf,
  clientNames,
  guardPointsOf,
  memberships,
  signatureSetRows,
  updateClient,
} from './tde-client.store.js';

// What applies to a client: its own guard points and authorised binaries, then its groups'.

/** The groups of clients (id → [{id, name, profile}] in membership order). */
export async function groupsOf(trx: Executor, domainId: string, clientIds: readonly string[]) {
  const map = new Map<string, { id: string; name: string; profile: string | null }[]>();
  for (const r of await memberships(trx, domainId, clientIds)) {
    const list = map.get(r.client_id) ?? [];
    list.push({ id: r.id, name: r.name, profile: r.profile });
    map.set(r.client_id, list);
  }
  return map;
}

/** The groups of one client, in membership order. */
export const groupsOfClient = async (trx: Executor, domainId: string, clientId: string) =>
  (await groupsOf(trx, domainId, [clientId])).get(clientId) ?? [];

/** Keeps `client.groups` (JSON ids) equal to the client's memberships. */
export async function syncGroups(trx: Executor, domainId: string, clientId: string, at: string) {
  const groups = await groupsOfClient(trx, domainId, clientId);
  await updateClient(trx, clientId, { groups: JSON.stringify(groups.map((g) => g.id)), updated_at: at });
}

/** Guard points in effect for each client: its own, then its groups' (with origin). */
export async function effectiveGuardPoints(trx: Executor, domainId: string, clientIds: readonly string[]) {
  const result = new Map<string, { gp: TdeGuardPointTable; origin: GuardPointRow['origin'] }[]>();
  if (clientIds.length === 0) return result;
  for (const id of clientIds) result.set(id, []);
  for (const gp of await guardPointsOf(trx, domainId, 'client_id', clientIds))
    result.get(gp.client_id!)!.push({ gp, origin: { kind: 'client' } });
  const groups = await groupsOf(trx, domainId, clientIds);
  const groupIds = [...new Set([...groups.values()].flat().map((g) => g.id))];
  if (groupIds.length) {
    const inherited = await guardPointsOf(trx, domainId, 'group_id', groupIds);
    for (const [clientId, list] of groups)
      for (const g of list)
        for (const gp of inherited.filter((x) => x.group_id === g.id))
          result.get(clientId)!.push({ gp, origin: { kind: 'group', id: g.id, name: g.name } });
  }
  return result;
}

/** The guard points in effect for one client. */
export const clientGuardPoints = async (trx: Executor, domainId: string, clientId: string) =>
  (await effectiveGuardPoints(trx, domainId, [clientId])).get(clientId) ?? [];

const originText = (origin: GuardPointRow['origin']) =>
  origin.kind === 'client' ? 'client' : `group ${origin.name}`;

/**
 * Refuses a guard point path already guarded for a client: `paths` against the guard points
 * in effect for `clientIds` (their own and their groups').
 */
export async function checkPathsFree(
  trx: Executor,
  domainId: string,
  clientIds: readonly string[],
  paths: readonly string[],
) {
  if (clientIds.length === 0 || paths.length === 0) return;
  const wanted = new Set(paths);
  const points = await effectiveGuardPoints(trx, domainId, clientIds);
  const names = new Map((await clientNames(trx, [...clientIds])).map((r) => [r.id, r.name]));
  for (const [clientId, list] of points)
    for (const { gp, origin } of list)
      if (wanted.has(gp.path))
        throw conflict('tdeClient.pathGuarded', {
          path: gp.path,
          client: names.get(clientId) ?? clientId,
          origin: originText(origin),
        });
}

/** Signature sets of the domain by id (policy elements of kind "signature"), with their hashes. */
export async function signatureSets(trx: Executor, domainId: string, ids: readonly (string | null)[]) {
  const wanted = [...new Set(ids.filter((x): x is string => x !== null))];
  const sets = new Map<string, { name: string; sha256: string[] }>();
  if (wanted.length === 0) return sets;
  for (const r of await signatureSetRows(trx, domainId, wanted)) {
    let entries: { hash_value?: unknown }[] = [];
    try {
      const parsed: unknown = JSON.parse(r.entries);
      if (Array.isArray(parsed)) entries = parsed as { hash_value?: unknown }[];
    } catch {
      entries = [];
    }
    sets.set(r.id, {
      name: r.name,
      sha256: entries.flatMap((e) => (typeof e.hash_value === 'string' ? [e.hash_value.toLowerCase()] : [])),
    });
  }
  return sets;
}

/** An authorised binary and whose list it comes from. */
export interface SourcedAuthBinary {
  row: TdeAuthBinaryTable;
  origin: AuthBinaryRow['origin'];
}

/** Authorised binaries in effect for a client: its own, then its groups' (with origin). */
export async function effectiveAuthBinaries(
  trx: Executor,
  domainId: string,
  clientId: string,
): Promise<SourcedAuthBinary[]> {
  const own = await authBinariesOf(trx, domainId, 'client_id', [clientId]);
  const result: SourcedAuthBinary[] = own.map((row) => ({ row, origin: { kind: 'client' } }));
  const groups = await groupsOfClient(trx, domainId, clientId);
  if (groups.length) {
    const inherited = await authBinariesOf(
      trx,
      domainId,
      'group_id',
      groups.map((g) => g.id),
    );
    for (const g of groups)
      for (const row of inherited.filter((x) => x.group_id === g.id))
        result.push({ row, origin: { kind: 'group', id: g.id, name: g.name } });
  }
  return result;
}
